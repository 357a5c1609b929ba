// The loader's public API (www/onrecord.js). The engine's types are wasm-bindgen's, in
// dist/onrecord_wasm.d.ts (`onrecord-widget/engine`).

/** The data attributes of the script tag or of `<onrecord-ask>`, camelCased (README.md). */
export interface MountOptions {
  /** URL of the folder holding the package's dist/ files as served, e.g. "/onrecord/". */
  assets?: string;
  /** URL of the index (`onrecord build` or build-index output). */
  index?: string;
  /** URL of the query model; default: query-model.onq beside the index. */
  model?: string;
  /** URL of your summary proxy; adds "Ask for a summary" after an answer. */
  proxy?: string;
  placeholder?: string;
  /** Language of the widget's sentences and of visitors' files; default: the page's `lang`. */
  language?: string;
  theme?: 'light' | 'dark' | 'auto';
  maxQuotes?: number;
  /** "idle": load in the background when the browser is idle. */
  preload?: 'idle' | '';
  /** true: "Did this answer help? Yes No" under answers (docs/widget.md#what-visitors-could-not-find). */
  feedback?: boolean;
  /** URL that receives one JSON record per question, result opened or feedback (sendBeacon). */
  report?: string;
  /** A path prefix ("/v2/") or a collection name: questions are answered from that part of the site only. */
  scope?: string;
}

/**
 * Starts the widget: defines `<onrecord-ask>` and, unless the page has one, adds the Ask button
 * and its Ctrl/Cmd-K dialog. Call it at the top level of the importing module (before any
 * `await`); otherwise the widget starts by itself with its defaults. Runs once.
 */
export function mount(options?: MountOptions): void;

declare global {
  interface HTMLElementTagNameMap {
    'onrecord-ask': HTMLElement;
  }
}
