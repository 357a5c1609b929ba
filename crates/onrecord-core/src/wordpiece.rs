//! The BERT uncased WordPiece tokenizer, as all-MiniLM-L6-v2 uses it.
//!
//! Basic tokenization: drop control characters, lowercase, strip accents, split on whitespace,
//! punctuation and around CJK ideographs. Then each word is cut greedily into the longest
//! vocabulary pieces, continuation pieces prefixed with `##`; a word that cannot be cut (or is
//! longer than 100 characters) becomes `[UNK]`.
//!
//! Accent stripping folds the Latin-1 and Latin Extended-A letters (À–ž) to their base letters
//! instead of running full Unicode NFD, which keeps the wasm small; other scripts pass through.

// A BTreeMap, not a HashMap: the same map type as elsewhere in the engine, so the wasm carries
// no hash table or hasher of its own (measured: about 2 KB gzipped).
use std::collections::BTreeMap;

/// Words longer than this many characters become `[UNK]`, as in BERT.
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary and its tokenizer.
#[derive(Debug, Clone)]
pub struct WordPiece {
    ids: BTreeMap<String, u32>,
    unk: Option<u32>,
}

impl WordPiece {
    /// Builds the tokenizer from the vocabulary in token-id order.
    pub fn new(vocab: &[String]) -> WordPiece {
        // Inserted one by one (a later duplicate wins, as with collect): `collect` would sort.
        let mut ids: BTreeMap<String, u32> = BTreeMap::new();
        for (i, t) in vocab.iter().enumerate() {
            ids.insert(t.clone(), i as u32);
        }
        let unk = ids.get("[UNK]").copied();
        WordPiece { ids, unk }
    }

    /// The vocabulary in id order, `len` entries; an id with no entry (a duplicate token in
    /// the source vocabulary) comes back empty.
    pub fn vocab(&self, len: usize) -> Vec<String> {
        let mut vocab = vec![String::new(); len];
        for (token, &id) in &self.ids {
            if let Some(slot) = vocab.get_mut(id as usize) {
                slot.clone_from(token);
            }
        }
        vocab
    }

    /// The id of a vocabulary entry, e.g. `[CLS]`.
    pub fn id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    /// Token ids of `text`, without special tokens. `[UNK]` ids are included when the
    /// vocabulary has one.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        let mut res = Vec::new();
        for word in basic_tokens(text) {
            self.word_pieces(&word, &mut res);
        }
        res
    }

    fn word_pieces(&self, word: &str, out: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            out.extend(self.unk);
            return;
        }
        let start_len = out.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while end > start {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(word.get(start..end).unwrap_or(""));
                if let Some(&id) = self.ids.get(&piece) {
                    found = Some(id);
                    break;
                }
                end = prev_char_boundary(word, end);
            }
            match found {
                Some(id) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(start_len);
                    out.extend(self.unk);
                    return;
                }
            }
        }
    }
}

fn prev_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.saturating_sub(1);
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// BERT's basic tokenization (uncased): lowercased, accent-stripped words and punctuation marks.
pub fn basic_tokens(text: &str) -> Vec<String> {
    let mut res = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, res: &mut Vec<String>| {
        if !word.is_empty() {
            res.push(std::mem::take(word));
        }
    };
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        if c.is_whitespace() {
            flush(&mut word, &mut res);
        } else if is_punctuation(c) || is_cjk(c) {
            flush(&mut word, &mut res);
            res.push(c.to_string());
        } else {
            for lower in c.to_lowercase() {
                if let Some(base) = fold_accent(lower) {
                    word.push(base);
                } else if !is_combining_mark(lower) {
                    word.push(lower);
                }
            }
        }
    }
    flush(&mut word, &mut res);
    res
}

/// BERT treats all non-alphanumeric ASCII and Unicode punctuation (categories P*) as
/// punctuation; symbols such as `€` or `©` stay inside their word.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(c as u32,
            0x00A1 | 0x00A7 | 0x00AB | 0x00B6 | 0x00B7 | 0x00BB | 0x00BF | 0x2010..=0x2027 | 0x2030..=0x205E
            | 0x3001..=0x3003 | 0x3008..=0x3011 | 0x3014..=0x301F | 0xFF01..=0xFF0F
            | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

fn is_combining_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// The base letter of a lowercase accented Latin letter, as NFD + dropping marks would give.
fn fold_accent(c: char) -> Option<char> {
    let base = match c {
        'à'..='å' => 'a',
        'ç' => 'c',
        'è'..='ë' => 'e',
        'ì'..='ï' => 'i',
        'ñ' => 'n',
        'ò'..='ö' => 'o',
        'ù'..='ü' => 'u',
        'ý' | 'ÿ' => 'y',
        'ā' | 'ă' | 'ą' => 'a',
        'ć' | 'ĉ' | 'ċ' | 'č' => 'c',
        'ď' => 'd',
        'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => 'e',
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => 'g',
        'ĥ' => 'h',
        'ĩ' | 'ī' | 'ĭ' | 'į' => 'i',
        'ĵ' => 'j',
        'ķ' => 'k',
        'ĺ' | 'ļ' | 'ľ' => 'l',
        'ń' | 'ņ' | 'ň' => 'n',
        'ō' | 'ŏ' | 'ő' => 'o',
        'ŕ' | 'ŗ' | 'ř' => 'r',
        'ś' | 'ŝ' | 'ş' | 'š' => 's',
        'ţ' | 'ť' => 't',
        'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => 'u',
        'ŵ' => 'w',
        'ŷ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        _ => return None,
    };
    Some(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        let words = [
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "how", "do", "i", "return", "a", "bike", "?", "un",
            "##want", "##ed", ",", "runn", "##ing", "cafe", "ruck", "##gabe",
        ];
        WordPiece::new(&words.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn basic_tokens_lowercase_strip_accents_and_split_punctuation() {
        assert_eq!(
            basic_tokens("Héllo, Wörld!  Café\tRückgabe"),
            ["hello", ",", "world", "!", "cafe", "ruckgabe"]
        );
        assert_eq!(basic_tokens("a\u{301}b 東京"), ["ab", "東", "京"]);
    }

    #[test]
    fn wordpiece_is_greedy_longest_match() {
        let wp = vocab();
        assert_eq!(
            wp.tokenize("How do I return a bike?"),
            [4, 5, 6, 7, 8, 9, 10]
        );
        assert_eq!(wp.tokenize("unwanted, running"), [11, 12, 13, 14, 15, 16]);
        assert_eq!(wp.tokenize("Café Rückgabe"), [17, 18, 19]);
        assert_eq!(wp.tokenize("xyz"), [1]);
        assert_eq!(wp.tokenize(&"a".repeat(101)), [1]);
    }
}
