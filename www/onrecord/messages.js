// Every sentence a visitor reads, in English and German, built here and nowhere else. The engine
// sends kinds, terms and numbers (crates/onrecord-wasm/src/api.rs); the widget's language is
// data-language, else the page's lang. Diagnostics that name a file, a URL or an HTTP status
// (index decoding, fetch failures, the proxy's errors) come from where they happen and are
// shown inside one of these sentences.

import { MAX_QUESTION_CHARS } from './state.js';

/**
 * @typedef {import('../dist/pkg/onrecord_wasm.js').DeclineDto} DeclineDto
 * @typedef {import('./state.js').Failure} Failure
 * @typedef {import('./state.js').Refusal} Refusal
 * @typedef {import('../dist/pkg/onrecord_wasm.js').AnswerDto['turn']} TurnDto
 * @typedef {import('../dist/pkg/onrecord_wasm.js').CollectionDto} CollectionDto
 * @typedef {import('../dist/pkg/onrecord_wasm.js').SectionDto} SectionDto
 * @typedef {typeof en} Messages
 */

/** @param {number} n @param {string} one @param {string} many */
const s = (n, one, many) => (n === 1 ? one : many);
/** ‘a’, ‘b’ or ‘c’, with the language's quotation marks and conjunction.
 * @param {string[]} words @param {string} open @param {string} close @param {string} or */
const list = (words, open, close, or) => {
  const q = words.map((w) => `${open}${w}${close}`);
  return q.length > 1 ? `${q.slice(0, -1).join(', ')} ${or} ${q[q.length - 1]}` : (q[0] ?? '');
};
/** Which sentence explains a decline: a coverage gate that measured everything (100%) did not
 * decline for coverage — the decline model weighed the evidence as a whole — so it is "weak".
 * @param {DeclineDto | null} d */
const gateOf = (d) =>
  (d?.gate === 'below-floor' || d?.gate === 'unsupported') && (d.coverage ?? 100) >= 100 ? 'weak' : (d?.gate ?? 'other');

/** Whether a decline for words the closest passage lacks names only words no page has: then
 * "these pages never mention" says it all, rather than the same words twice.
 * @param {DeclineDto | null} d @param {string[]} missing */
const onNoPage = (d, missing) => d?.gate === 'missing' && !!d.terms?.length &&
  d.terms.every((t) => missing.some((m) => m.toLowerCase() === t.toLowerCase()));

/** Names of the languages a question can be read as ("your question reads as …").
 * @type {Record<string, string>} */
const LANGS_EN = { en: 'English', de: 'German', fr: 'French', es: 'Spanish', nl: 'Dutch', it: 'Italian', pt: 'Portuguese' };
/** @type {Record<string, string>} */
const LANGS_DE = { en: 'Englisch', de: 'Deutsch', fr: 'Französisch', es: 'Spanisch', nl: 'Niederländisch', it: 'Italienisch', pt: 'Portugiesisch' };

const en = {
  title: 'Ask these pages',
  placeholder: 'Ask a question about these pages',
  ask: 'Ask',
  close: 'Close',
  /** @param {boolean} mac @returns {string} */
  shortcut: (mac) => (mac ? '⌘K' : 'Ctrl K'),
  /** @template T @param {T} pick the "choose files" control */
  drop: (pick) => ['Your documents: drop .md or .txt files here, or ', pick,
    '. They are indexed in this page and never sent anywhere.'],
  chooseFiles: 'choose files',
  /** @param {string[]} names */
  askingDocuments: (names) => `Asking your documents: ${names.join(', ')}. `,
  askSiteAgain: 'Ask this site again',

  loading: 'Loading the search index…',
  ready: 'Ready. Answers are quoted from these pages, or declined.',
  /** @param {number} n @param {string | null} from @param {string | null} confidence */
  answered: (n, from, confidence) => `Answered with ${n} ${s(n, 'quote', 'quotes')}${from ? ` from ${from}` : ''}.` +
    (confidence ? ` ${en.confidence(confidence)}.` : ''),
  relatedOnly: 'Not in these documents; related private material exists.',
  /** @param {string} why */
  declined: (why) => `Not in these documents. ${why}`.trim(),
  /** @param {number} n */
  indexed: (n) => `Indexed ${n} ${s(n, 'file', 'files')} in this page. Ask away.`,
  siteAgain: 'Asking this site’s pages again.',
  /** @param {string} detail */
  askFailed: (detail) => `Something went wrong: ${detail}`,
  offline: 'This question needs parts of the search index that could not be fetched (are you offline?). ' +
    'Questions about what was already fetched still work; ask again once you are online.',
  /** @param {string} detail */
  summariesFailed: (detail) => `Summaries are unavailable: ${detail}`,
  /** @param {Failure} f */
  unavailable: (f) => (f.kind === 'wasm-blocked'
    ? 'Search is unavailable: this site’s Content Security Policy does not allow WebAssembly (script-src needs \'wasm-unsafe-eval\').'
    : `Search is unavailable: ${f.detail}`),

  /** @param {string | null} completeness supported or partial */
  mode: (completeness) => `Answer · ${completeness === 'partial' ? 'partial' : 'supported'}`,
  /** The part of the question the quoted pages do not cover. @param {string[]} terms */
  nothingOn: (terms) => `Nothing here on ${list(terms, '‘', '’', 'or')}.`,
  /** @param {string} level high, medium or low */
  confidence: (level) => `${level.charAt(0).toUpperCase()}${level.slice(1)} confidence`,
  /** @param {string} title @param {string} section */
  citation: (title, section) => (section ? `${title} › ${section}` : title),
  goToQuote: 'Go to the quote',
  /** @param {number} no @param {number} count */
  position: (no, count) => ` fragment ${no} of ${count}`,
  relatedSections: 'Related sections',
  mayHelp: 'These sections may help:',
  /** @param {number} n results shown */
  found: (n) => (n ? `${n} ${s(n, 'result', 'results')}` : 'No results'),
  /** Words of the question read as the site's nearest words. @param {string[]} words */
  showingFor: (words) => `Showing results for ${list(words, '‘', '’', 'and')}`,
  privateNotes: 'These pages do not answer that, but private notes of the site owner cover it:',
  askForSummary: 'Ask for a summary',
  feedback: 'Did this answer help?',
  yes: 'Yes',
  no: 'No',
  thanks: 'Thank you for telling us.',
  newQuestion: 'New question',
  newThread: 'New question: the next one is read on its own, not as a follow-up.',
  /** How a follow-up was read. @param {TurnDto} turn */
  readAs: (turn) => `Read as “${turn.question}”${turn.kind === 'explanation' ? ', about the answer before' : ''}.`,
  /** A quote's label: the site's own, else the built-in collection's. @param {CollectionDto} c */
  collection: (c) => c.label || ({
    guides: 'How it works', decisions: 'Why we decided', reference: 'Reference', 'release-notes': 'Release notes',
  })[c.name] || c.name,
  exploreFurther: 'Explore further',
  /** What to put in the box for a section near the quoted ones (it fills the box, never asks):
   * its heading as the words a visitor would type, which find it as they are typed. Only release
   * notes and decisions read as questions, since what one asks of them is always the same.
   * @param {SectionDto} s */
  suggest: (s) => {
    const kind = s.collection?.name;
    if (kind === 'release-notes') return `What changed in “${s.section || s.title}”?`;
    if (kind === 'decisions') return `What was decided in “${s.title}”, and why?`;
    return s.section || s.title;
  },
  /** @param {string[]} terms */
  neverMention: (terms) => `These pages never mention ${list(terms, '‘', '’', 'or')}.`,
  /** @param {string | undefined} name the question's language */
  otherLanguage: (name) => (name
    ? `Your question reads as ${name}, and these pages are not written in ${name}: please ask in the language of these pages.`
    : 'Your question reads as another language than these pages: please ask in the language of these pages.'),
  /** Why the engine declined, and the words no page uses when the gate did not already say so.
   * @param {DeclineDto | null} d @param {string[]} missing */
  declineReason: (d, missing) => {
    if (onNoPage(d, missing)) return en.neverMention(missing);
    const why = {
      'too-long': `Questions can be at most ${MAX_QUESTION_CHARS} characters long.`,
      'control-characters': 'The question holds control characters; please type it again.',
      'no-content-words': 'Ask a question with some words these pages could contain.',
      'other-language': en.otherLanguage(LANGS_EN[d?.lang ?? '']),
      'never-mentioned': en.neverMention(d?.terms ?? []),
      missing: `The closest passage never mentions ${list(d?.terms ?? [], '‘', '’', 'or')}, so it is not quoted as an answer.`,
      'below-floor': `The closest passage covers only ${d?.coverage}% of what you asked, so it is not quoted as an answer.`,
      unsupported: `The closest sentence carries only ${d?.coverage}% of what you asked, so it is not quoted as an answer.`,
      weak: 'The closest passage uses your words but does not answer the question clearly enough to be quoted.',
      'no-amount': 'You asked for a number or amount, and the closest passage gives none, so it is not quoted as an answer.',
      other: 'These pages do not answer that.',
    }[gateOf(d)];
    return d?.gate !== 'never-mentioned' && missing.length ? `${why} ${en.neverMention(missing)}` : why;
  },

  /** @param {Refusal} r */
  refusal: (r) => {
    switch (r.kind) {
      case 'not-text': return `${r.file} is not a .md or .txt file.`;
      case 'too-large': return `${r.file} is ${r.bytes} bytes: files of at most ${r.limit} bytes can be indexed.`;
      case 'empty': return `${r.file} is empty.`;
      case 'binary': return `${r.file} is not a text file (it holds binary data).`;
      case 'no-text': return `${r.file} has no text to search, only headings or markup.`;
      case 'too-many-files': return `${r.count} files is too many: at most ${r.limit} at once.`;
      case 'no-files': return 'There are no files to index.';
      case 'failed': return `Your files could not be indexed: ${r.detail}.`;
      default: return 'Your files could not be indexed.';
    }
  },

  summary: {
    label: 'Model summary',
    asking: 'Asking for a summary…',
    writing: 'The model is writing; its draft is checked before it is kept.',
    draft: 'Draft, not yet checked: ',
    /** @param {string} why */
    unavailable: (why) => `Summary unavailable: ${why}`,
    cannotCheck: 'this page cannot check the model’s quotes',
    noPassages: 'there are no passages to summarise',
    /** @param {string} detail */
    notReady: (detail) => `the search index is not ready (${detail})`,
    /** @param {string} detail */
    unreachable: (detail) => `the summary service cannot be reached (${detail})`,
    /** @param {number} status */
    http: (status) => `HTTP ${status}`,
    callFailed: 'the model call failed',
    /** @param {string} detail */
    brokeOff: (detail) => `the summary stream broke off (${detail})`,
    noResult: 'the summary stream ended without a result',
    /** The proxy's reason for showing nothing. @param {unknown} reason */
    nothing: (reason) => ({
      'model-declined': 'The model found no answer in these passages.',
      'no-verified-quote': 'The model’s answer could not be checked against these pages, so it is not shown.',
      'model-output-invalid': 'The model replied in an unusable form, so nothing is shown.',
      'model-output-cut': 'The model’s reply was cut off, so nothing is shown.',
    })[String(reason)] ?? 'No checked answer from the model.',
    /** @param {number} n @param {number} dropped */
    result: (n, dropped) => `Summary: ${n} checked ${s(n, 'quote', 'quotes')}` +
      (dropped ? `; ${dropped} unchecked ${s(dropped, 'quote', 'quotes')} left out.` : '.'),
  },
};

/** @type {Messages} */
const de = {
  title: 'Diese Seiten fragen',
  placeholder: 'Eine Frage zu diesen Seiten stellen',
  ask: 'Fragen',
  close: 'Schließen',
  shortcut: (mac) => (mac ? '⌘K' : 'Strg K'),
  drop: (pick) => ['Eigene Dokumente: .md- oder .txt-Dateien hierher ziehen oder ', pick,
    '. Sie werden in dieser Seite indexiert und nirgendwohin gesendet.'],
  chooseFiles: 'Dateien auswählen',
  askingDocuments: (names) => `Gefragt werden Ihre Dokumente: ${names.join(', ')}. `,
  askSiteAgain: 'Wieder diese Website fragen',

  loading: 'Der Suchindex wird geladen…',
  ready: 'Bereit. Antworten werden wörtlich aus diesen Seiten zitiert oder abgelehnt.',
  answered: (n, from, confidence) => `Beantwortet mit ${n} ${s(n, 'Zitat', 'Zitaten')}${from ? ` aus ${from}` : ''}.` +
    (confidence ? ` ${de.confidence(confidence)}.` : ''),
  relatedOnly: 'Nicht in diesen Dokumenten; es gibt verwandtes privates Material.',
  declined: (why) => `Nicht in diesen Dokumenten. ${why}`.trim(),
  indexed: (n) => `${n} ${s(n, 'Datei', 'Dateien')} in dieser Seite indexiert. Fragen Sie los.`,
  siteAgain: 'Es werden wieder die Seiten dieser Website gefragt.',
  askFailed: (detail) => `Etwas ist schiefgegangen: ${detail}`,
  offline: 'Diese Frage braucht Teile des Suchindex, die nicht geladen werden konnten (sind Sie offline?). ' +
    'Fragen zu bereits Geladenem funktionieren weiter; fragen Sie erneut, sobald Sie online sind.',
  summariesFailed: (detail) => `Zusammenfassungen sind nicht verfügbar: ${detail}`,
  unavailable: (f) => (f.kind === 'wasm-blocked'
    ? 'Die Suche ist nicht verfügbar: Die Content Security Policy dieser Website erlaubt kein WebAssembly (script-src braucht \'wasm-unsafe-eval\').'
    : `Die Suche ist nicht verfügbar: ${f.detail}`),

  mode: (completeness) => `Antwort · ${completeness === 'partial' ? 'teilweise' : 'gestützt'}`,
  nothingOn: (terms) => `Hier steht nichts zu ${list(terms, '‚', '‘', 'oder')}.`,
  confidence: (level) => `Zuverlässigkeit ${{ high: 'hoch', medium: 'mittel', low: 'niedrig' }[level] ?? level}`,
  citation: (title, section) => (section ? `${title} › ${section}` : title),
  goToQuote: 'Zum Zitat',
  position: (no, count) => ` Fragment ${no} von ${count}`,
  relatedSections: 'Verwandte Abschnitte',
  mayHelp: 'Diese Abschnitte könnten helfen:',
  found: (n) => (n ? `${n} Treffer` : 'Keine Treffer'),
  showingFor: (words) => `Ergebnisse für ${list(words, '‚', '‘', 'und')}`,
  privateNotes: 'Diese Seiten beantworten das nicht, aber private Notizen des Website-Betreibers behandeln es:',
  askForSummary: 'Zusammenfassung anfordern',
  feedback: 'Hat diese Antwort geholfen?',
  yes: 'Ja',
  no: 'Nein',
  thanks: 'Danke für Ihre Rückmeldung.',
  newQuestion: 'Neue Frage',
  newThread: 'Neue Frage: Die nächste wird für sich gelesen, nicht als Nachfrage.',
  readAs: (turn) => `Verstanden als „${turn.question}“${turn.kind === 'explanation' ? ', bezogen auf die Antwort davor' : ''}.`,
  collection: (c) => c.label || ({
    guides: 'So funktioniert es', decisions: 'Warum wir so entschieden haben', reference: 'Referenz', 'release-notes': 'Versionshinweise',
  })[c.name] || c.name,
  exploreFurther: 'Weiter erkunden',
  suggest: (s) => {
    const kind = s.collection?.name;
    if (kind === 'release-notes') return `Was hat sich in „${s.section || s.title}“ geändert?`;
    if (kind === 'decisions') return `Was wurde in „${s.title}“ entschieden, und warum?`;
    return s.section || s.title;
  },
  neverMention: (terms) => `Diese Seiten erwähnen ${list(terms, '‚', '‘', 'oder')} nicht.`,
  /** @param {string | undefined} name */
  otherLanguage: (name) => (name
    ? `Ihre Frage ist offenbar auf ${name} gestellt; diese Seiten sind nicht auf ${name} geschrieben. Bitte fragen Sie in der Sprache dieser Seiten.`
    : 'Ihre Frage ist offenbar in einer anderen Sprache gestellt als diese Seiten. Bitte fragen Sie in der Sprache dieser Seiten.'),
  declineReason: (d, missing) => {
    if (onNoPage(d, missing)) return de.neverMention(missing);
    const why = {
      'too-long': `Fragen dürfen höchstens ${MAX_QUESTION_CHARS} Zeichen lang sein.`,
      'control-characters': 'Die Frage enthält Steuerzeichen; bitte geben Sie sie neu ein.',
      'no-content-words': 'Stellen Sie eine Frage mit Wörtern, die in diesen Seiten vorkommen könnten.',
      'other-language': de.otherLanguage(LANGS_DE[d?.lang ?? '']),
      'never-mentioned': de.neverMention(d?.terms ?? []),
      missing: `Der nächstliegende Abschnitt erwähnt ${list(d?.terms ?? [], '‚', '‘', 'oder')} nicht und wird daher nicht als Antwort zitiert.`,
      'below-floor': `Der nächstliegende Abschnitt deckt nur ${d?.coverage} % Ihrer Frage ab und wird daher nicht als Antwort zitiert.`,
      unsupported: `Der nächstliegende Satz trägt nur ${d?.coverage} % Ihrer Frage und wird daher nicht als Antwort zitiert.`,
      weak: 'Der nächstliegende Abschnitt enthält Ihre Wörter, beantwortet die Frage aber nicht deutlich genug, um zitiert zu werden.',
      'no-amount': 'Sie haben nach einer Zahl oder einem Betrag gefragt, und der nächstliegende Abschnitt nennt keine; er wird daher nicht als Antwort zitiert.',
      other: 'Diese Seiten beantworten das nicht.',
    }[gateOf(d)];
    return d?.gate !== 'never-mentioned' && missing.length ? `${why} ${de.neverMention(missing)}` : why;
  },

  refusal: (r) => {
    switch (r.kind) {
      case 'not-text': return `${r.file} ist keine .md- oder .txt-Datei.`;
      case 'too-large': return `${r.file} ist ${r.bytes} Bytes groß: Dateien mit höchstens ${r.limit} Bytes können indexiert werden.`;
      case 'empty': return `${r.file} ist leer.`;
      case 'binary': return `${r.file} ist keine Textdatei (sie enthält Binärdaten).`;
      case 'no-text': return `${r.file} enthält keinen durchsuchbaren Text, nur Überschriften oder Auszeichnungen.`;
      case 'too-many-files': return `${r.count} Dateien sind zu viele: höchstens ${r.limit} auf einmal.`;
      case 'no-files': return 'Es gibt keine Dateien zum Indexieren.';
      case 'failed': return `Ihre Dateien konnten nicht indexiert werden: ${r.detail}.`;
      default: return 'Ihre Dateien konnten nicht indexiert werden.';
    }
  },

  summary: {
    label: 'Zusammenfassung des Modells',
    asking: 'Die Zusammenfassung wird angefordert…',
    writing: 'Das Modell schreibt; sein Entwurf wird geprüft, bevor er bleibt.',
    draft: 'Entwurf, noch nicht geprüft: ',
    unavailable: (why) => `Zusammenfassung nicht verfügbar: ${why}`,
    cannotCheck: 'diese Seite kann die Zitate des Modells nicht prüfen',
    noPassages: 'es gibt keine Abschnitte zum Zusammenfassen',
    notReady: (detail) => `der Suchindex ist nicht bereit (${detail})`,
    unreachable: (detail) => `der Dienst für Zusammenfassungen ist nicht erreichbar (${detail})`,
    http: (status) => `HTTP ${status}`,
    callFailed: 'der Aufruf des Modells ist fehlgeschlagen',
    brokeOff: (detail) => `die Zusammenfassung brach ab (${detail})`,
    noResult: 'die Zusammenfassung endete ohne Ergebnis',
    nothing: (reason) => ({
      'model-declined': 'Das Modell hat in diesen Abschnitten keine Antwort gefunden.',
      'no-verified-quote': 'Die Antwort des Modells ließ sich an diesen Seiten nicht prüfen und wird daher nicht gezeigt.',
      'model-output-invalid': 'Das Modell antwortete in unbrauchbarer Form; daher wird nichts gezeigt.',
      'model-output-cut': 'Die Antwort des Modells wurde abgeschnitten; daher wird nichts gezeigt.',
    })[String(reason)] ?? 'Keine geprüfte Antwort des Modells.',
    result: (n, dropped) => `Zusammenfassung: ${n} ${s(n, 'geprüftes Zitat', 'geprüfte Zitate')}` +
      (dropped ? `; ${dropped} ${s(dropped, 'ungeprüftes Zitat', 'ungeprüfte Zitate')} weggelassen.` : '.'),
  },
};

/** The sentences for a language tag: German for de and de-*, else English. @param {string} lang */
export function messagesFor(lang) {
  return /^de(-|$)/i.test(lang) ? de : en;
}
