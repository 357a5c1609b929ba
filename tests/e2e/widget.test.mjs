// The widget's modules that need no browser, in Node: the sentences (www/onrecord/messages.js)
// and the panel's state transitions (www/onrecord/state.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor } from '../../www/onrecord/messages.js';
import * as S from '../../www/onrecord/state.js';

const en = messagesFor('en');
const de = messagesFor('de');

/** Every leaf of a messages object, called with sample arguments where it is a function. */
function leaves(msgs, path = '') {
  return Object.entries(msgs).flatMap(([key, value]) => {
    const at = path ? `${path}.${key}` : key;
    if (typeof value === 'object') return leaves(value, at);
    if (typeof value === 'function') return [[at, String(value.length)]];
    return [[at, 'text']];
  });
}

test('German has every sentence English has, with the same arguments', () => {
  assert.deepEqual(leaves(de), leaves(en));
  assert.equal(messagesFor('de-AT'), de);
  assert.equal(messagesFor('DE'), de);
  assert.equal(messagesFor('fr'), en, 'languages without sentences fall back to English');
  assert.equal(messagesFor('dev'), en);
});

test('a decline says why for every gate, and names unused words only once', () => {
  const gates = ['no-content-words', 'other-language', 'never-mentioned', 'missing', 'below-floor', 'unsupported', 'no-amount', 'other'];
  for (const msgs of [en, de]) {
    const reasons = gates.map((gate) => msgs.declineReason({ gate, terms: ['kubernetes'], coverage: 40, lang: 'nl' }, []));
    assert.equal(new Set(reasons).size, gates.length, reasons.join(' | '));
    for (const reason of reasons) assert.match(reason, /^\S.*\.$/);
  }
  assert.equal(en.declineReason({ gate: 'never-mentioned', terms: ['capital', 'france'], coverage: null }, ['capital', 'france']),
    'These pages never mention ‘capital’ or ‘france’.');
  // Words the closest passage lacks that no page has at all: said once, as never mentioned.
  assert.equal(en.declineReason({ gate: 'missing', terms: ['vendez', 'Occasion'], coverage: null }, ['vendez', 'occasion']),
    'These pages never mention ‘vendez’ or ‘occasion’.');
  assert.equal(de.declineReason({ gate: 'missing', terms: ['vendez'], coverage: null }, ['vendez']),
    'Diese Seiten erwähnen ‚vendez‘ nicht.');
  assert.equal(en.declineReason({ gate: 'missing', terms: ['warranty', 'vendez'], coverage: null }, ['vendez']),
    'The closest passage never mentions ‘warranty’ or ‘vendez’, so it is not quoted as an answer. These pages never mention ‘vendez’.');
  // A question in a language no page is in names that language, in the widget's language.
  assert.equal(en.declineReason({ gate: 'other-language', terms: [], coverage: null, lang: 'de' }, []),
    'Your question reads as German, and these pages are not written in German: please ask in the language of these pages.');
  assert.equal(de.declineReason({ gate: 'other-language', terms: [], coverage: null, lang: 'fr' }, []),
    'Ihre Frage ist offenbar auf Französisch gestellt; diese Seiten sind nicht auf Französisch geschrieben. Bitte fragen Sie in der Sprache dieser Seiten.');
  assert.match(de.declineReason({ gate: 'other-language', terms: [], coverage: null, lang: null }, []), /in einer anderen Sprache gestellt/);
  // A coverage gate at 100% was not a coverage shortfall: the evidence as a whole was weak.
  assert.equal(en.declineReason({ gate: 'below-floor', terms: [], coverage: 100 }, []),
    'The closest passage uses your words but does not answer the question clearly enough to be quoted.');
  assert.match(de.declineReason({ gate: 'unsupported', terms: [], coverage: 100 }, []), /nicht deutlich genug/);
  assert.equal(en.declineReason({ gate: 'below-floor', terms: [], coverage: 40 }, ['redis', 'caching']),
    'The closest passage covers only 40% of what you asked, so it is not quoted as an answer. These pages never mention ‘redis’ or ‘caching’.');
  assert.equal(de.declineReason({ gate: 'unsupported', terms: [], coverage: 35 }, ['a', 'b', 'c']),
    'Der nächstliegende Satz trägt nur 35 % Ihrer Frage und wird daher nicht als Antwort zitiert. Diese Seiten erwähnen ‚a‘, ‚b‘ oder ‚c‘ nicht.');
  assert.equal(en.declineReason({ gate: 'no-amount', terms: [], coverage: null }, []),
    'You asked for a number or amount, and the closest passage gives none, so it is not quoted as an answer.');
  assert.equal(en.declineReason(null, []), 'These pages do not answer that.');
});

test('every refusal names the file in both languages', () => {
  const refusals = [
    { kind: 'not-text', file: 'x.pdf' }, { kind: 'too-large', file: 'x.md', bytes: 3, limit: 2 },
    { kind: 'empty', file: 'x.md' }, { kind: 'binary', file: 'x.md' },
  ];
  for (const msgs of [en, de]) {
    for (const r of refusals) assert.match(msgs.refusal(r), /^x\.(pdf|md) .+\.$/, JSON.stringify(r));
    assert.match(msgs.refusal({ kind: 'too-many-files', count: 51, limit: 50 }), /^51 .+ 50 /);
    assert.match(msgs.refusal({ kind: 'failed', detail: 'could not start the search worker w.js' }), /could not start the search worker w\.js\.$/);
  }
  assert.equal(en.refusal({ kind: 'too-large', file: 'huge.txt', bytes: 2_000_001, limit: 2_000_000 }),
    'huge.txt is 2000001 bytes: files of at most 2000000 bytes can be indexed.');
});

test('plurals and the answered line', () => {
  assert.equal(en.answered(1, 'Guide › Times', 'high'), 'Answered with 1 quote from Guide › Times. High confidence.');
  assert.equal(en.answered(2, null, null), 'Answered with 2 quotes.');
  assert.equal(de.answered(2, 'A', 'low'), 'Beantwortet mit 2 Zitaten aus A. Zuverlässigkeit niedrig.');
  assert.equal(en.indexed(1), 'Indexed 1 file in this page. Ask away.');
  assert.equal(de.summary.result(1, 2), 'Zusammenfassung: 1 geprüftes Zitat; 2 ungeprüfte Zitate weggelassen.');
});

const answer = (mode = 'answer') => ({
  mode, completeness: null, incomplete: [], confidence: null, quotes: [], related: [], hints: [], decline: null, missingTerms: [],
  results: [], corrections: [],
});

test('an answer for a turn that is no longer in the thread is dropped', () => {
  let s = S.asked(S.initial(), 'When do ferries leave?');
  const first = s.turns[0].id;
  s = S.documentsIndexed(s, ['notes.md']); // the visitor switched to their files meanwhile
  assert.equal(S.answered(s, first, answer()), s);
  assert.equal(S.askFailed(s, first, 'boom'), s);
  assert.equal(S.askOffline(s, first), s);
  s = S.asked(s, 'What do my notes say?');
  assert.equal(s.turns[0].corpus, 'documents');
  s = S.answered(s, s.turns[0].id, answer());
  assert.equal(s.turns[0].answer?.mode, 'answer');
  assert.deepEqual(s.notice, { kind: 'answered' });
});

test('a question whose index shards cannot be fetched leaves the thread and says so; the others stay', () => {
  let s = S.answered(S.asked(S.initial(), 'one'), 1, answer());
  s = S.askOffline(S.asked(s, 'two'), 2);
  assert.deepEqual([s.turns.map((t) => t.question), s.notice], [['one'], { kind: 'offline' }]);
  assert.match(en.offline, /could not be fetched \(are you offline\?\)/);
  assert.match(de.offline, /nicht geladen werden konnten \(sind Sie offline\?\)/);
});

test('questions join the thread with the last answer\'s context; "New question" and going back to the site empty it', () => {
  const context = { version: 5, index: 'ab', question: 'one', fragments: [3] };
  let s = S.answered(S.asked(S.initial(), 'one'), 1, { ...answer(), context });
  assert.equal(s.turns[0].context, null, 'the first question carries no context');
  s = S.asked(s, 'and two?');
  assert.deepEqual(s.turns.map((t) => [t.id, t.question, t.context]), [[1, 'one', null], [2, 'and two?', context]]);
  // A turn still waiting is skipped: the next question follows the last answered one.
  s = S.asked(s, 'and three?');
  assert.equal(s.turns[2].context, context);
  s = S.newThread(s);
  assert.deepEqual([s.turns, s.notice], [[], { kind: 'new-thread' }]);
  s = S.asked(s, 'four');
  assert.equal(s.turns[0].context, null, 'after "New question" nothing is followed up');
  s = S.backToSite(S.documentsIndexed(s, ['a.md']));
  assert.deepEqual([s.corpus, s.documents, s.turns], ['site', [], []]);
  for (let i = 0; i < 30; i++) s = S.asked(s, `q${i}`);
  assert.equal(s.turns.length, 20, 'the thread keeps its last 20 turns');
});

test('follow-ups, collections and suggestions are worded in both languages', () => {
  assert.equal(en.readAs({ kind: 'refinement', question: 'How long is the warranty for parts?' }),
    'Read as “How long is the warranty for parts?”.');
  assert.equal(en.readAs({ kind: 'explanation', question: 'Why? Is it open on Mondays?' }),
    'Read as “Why? Is it open on Mondays?”, about the answer before.');
  assert.equal(de.readAs({ kind: 'pronoun', question: 'Wie schwer ist der Tern?' }), 'Verstanden als „Wie schwer ist der Tern?“.');
  assert.equal(en.collection({ name: 'decisions', label: '' }), 'Why we decided');
  assert.equal(de.collection({ name: 'guides', label: '' }), 'So funktioniert es');
  assert.equal(en.collection({ name: 'decisions', label: 'Our reasons' }), 'Our reasons', 'the site\'s label wins');
  assert.equal(en.collection({ name: 'how-tos', label: '' }), 'how-tos', 'a site\'s own collection shows its name');
  const section = (collection, title = 'Warranty', sectionName = 'Making a claim') => ({ fragment: 1, title, section: sectionName, url: '/w/', collection });
  // A section's heading, as a visitor would type it: no template question around it.
  assert.equal(en.suggest(section(null)), 'Making a claim');
  assert.equal(en.suggest(section(null, 'FAQ', '')), 'FAQ');
  assert.equal(en.suggest(section({ name: 'decisions', label: '' }, 'Decision 4: A deposit')), 'What was decided in “Decision 4: A deposit”, and why?');
  assert.equal(en.suggest(section({ name: 'release-notes', label: '' }, 'Changes', '2.4.1')), 'What changed in “2.4.1”?');
  assert.equal(de.suggest(section(null)), 'Making a claim');
});

test('"Ready" replaces only the loading notice; a failure is kept', () => {
  let s = S.loading(S.initial());
  assert.deepEqual([s.site, s.notice], ['loading', { kind: 'loading' }]);
  assert.deepEqual(S.loaded(s).notice, { kind: 'ready' });
  s = S.documentsIndexed(s, ['a.md', 'b.md']); // files dropped while the index loads
  assert.deepEqual(S.loaded(s).notice, { kind: 'indexed', count: 2 });
  const failed = S.failed(S.loading(S.initial()), { kind: 'wasm-blocked' });
  assert.equal(S.loading(failed), failed, 'a failed engine is not retried');
});

test('files are judged by name and size before reading; engine refusals come through as data', () => {
  assert.equal(S.precheck([{ name: 'a.md', size: 10 }, { name: 'b.TXT', size: S.MAX_FILE_BYTES }]), null);
  assert.deepEqual(S.precheck([{ name: 'a.md', size: 1 }, { name: 'r.pdf', size: 1 }]), { kind: 'not-text', file: 'r.pdf' });
  assert.deepEqual(S.precheck([{ name: 'big.md', size: S.MAX_FILE_BYTES + 1 }]),
    { kind: 'too-large', file: 'big.md', bytes: S.MAX_FILE_BYTES + 1, limit: S.MAX_FILE_BYTES });
  const refused = Object.assign(new Error('the files were refused'), { refusal: { kind: 'empty', file: 'e.md' } });
  assert.deepEqual(S.refusalOf(refused), { kind: 'empty', file: 'e.md' });
  assert.deepEqual(S.refusalOf(new Error('no index loaded')), { kind: 'failed', detail: 'no index loaded' });
  const before = S.documentsIndexed(S.initial(), ['kept.md']);
  assert.deepEqual(S.documentsRefused(before, { kind: 'empty', file: 'e.md' }).documents, ['kept.md']);
});

test('a blocked WebAssembly compile is told apart from other failures', () => {
  const csp = Object.assign(new Error("WebAssembly.instantiate(): Refused to compile or instantiate WebAssembly module because 'wasm-unsafe-eval' is not an allowed source"), { name: 'CompileError' });
  assert.deepEqual(S.failureOf(csp), { kind: 'wasm-blocked' });
  assert.deepEqual(S.failureOf(new Error('index is corrupt')), { kind: 'error', detail: 'index is corrupt' });
  assert.deepEqual(S.failureOf('plain'), { kind: 'error', detail: 'plain' });
});

const found = (...titles) => ({
  results: titles.map((title, i) => ({ fragment: i, title, section: '', url: `/${title}/`, excerpt: title, highlights: [], collection: null })),
  corrections: [],
});

test('results as typed: a reply to an earlier text never overwrites a later one; fewer than two characters show nothing', () => {
  let s = S.typed(S.initial(), 1, 'ch');
  s = S.typed(s, 2, 'charg');
  assert.equal(S.searched(s, 1, 'ch', found('stale')), s, 'the reply to text 1 comes after text 2 was typed');
  s = S.searched(s, 2, 'charg', found('Charging', 'Batteries'));
  assert.deepEqual([s.live?.query, s.live?.search?.results.length, s.notice], ['charg', 2, { kind: 'results', count: 2 }]);
  // The next text keeps the last good results until its own come; a failure keeps them too.
  s = S.typed(s, 3, 'chargi');
  assert.equal(s.live?.search?.results[0].title, 'Charging');
  assert.equal(S.liveFailed(s, 2, true, 'x'), s, 'a failure of an earlier text says nothing');
  const offline = S.liveFailed(s, 3, true, 'x');
  assert.deepEqual([offline.live, offline.notice], [s.live, { kind: 'offline' }]);
  assert.deepEqual(S.liveFailed(s, 3, false, 'boom').notice, { kind: 'ask-failed', detail: 'boom' });
  assert.equal(S.typed(s, 4, 'c').live, null, 'one letter shows nothing');
  assert.equal(S.typed(s, 4, '').live, null);
  assert.equal(en.found(0), 'No results');
  assert.equal(en.found(1), '1 result');
  assert.equal(en.found(5), '5 results');
  assert.equal(de.found(5), '5 Treffer');
  assert.equal(en.showingFor(['compression']), 'Showing results for ‘compression’');
  assert.equal(en.showingFor(['compression', 'level']), 'Showing results for ‘compression’ and ‘level’');
  assert.equal(de.showingFor(['Kompression']), 'Ergebnisse für ‚Kompression‘');
});

test('the answer after a pause goes into the thread on Enter, unless the thread changed meanwhile', () => {
  const context = { version: 5, index: 'ab', question: 'one', fragments: [3] };
  let s = S.answered(S.asked(S.initial(), 'one'), 1, { ...answer(), context });
  s = S.typed(s, 1, 'and two?');
  s = S.searched(s, 1, 'and two?', found('Two'));
  assert.equal(S.previewed(s, 0, 'and tw', S.contextOf(s), answer()), s, 'an answer to an earlier text is dropped');
  const preview = { ...answer(), results: found('Two').results };
  s = S.previewed(s, 1, 'and two?', S.contextOf(s), preview);
  assert.deepEqual([s.live?.answer, s.live?.context, s.notice], [preview, context, { kind: 'answered' }]);
  // Results for the same text after its answer keep the answer above them.
  assert.equal(S.searched(s, 1, 'and two?', found('Two')).live?.answer, preview);
  const asked = S.asked(s, 'and two?');
  assert.deepEqual([asked.turns[1].answer, asked.turns[1].context], [preview, context], 'not asked again');
  assert.equal(S.asked(s, 'and three?').turns[1].answer, null, 'another question is asked');
  assert.equal(S.asked(S.newThread(s), 'and two?').turns[0].answer, null, 'asked with another context: asked again');
  assert.equal(S.documentsIndexed(s, ['a.md']).live, null, 'other pages: nothing found as typed stays');
});
