#!/usr/bin/env python3
"""Plain-Python reference of the query tokenizer the Rust side re-implements.

It only needs the vocabulary stored in query-model.onq. verify.py checks that it
gives exactly the ids of the teacher's HF tokenizer (tokenizer.json, called with
add_special_tokens=False) on every training passage and query.

Rule (= HF BertNormalizer(clean_text, handle_chinese_chars, lowercase, strip
accents) + BertPreTokenizer + WordPiece('##', max 100 chars, [UNK])):
  1. clean: drop U+0000, U+FFFD and every char of general category C* except
     \t \n \r; map whitespace (\t \n \r and White_Space chars) to ' '
  2. put ' ' before and after every CJK ideograph (ranges in CJK below)
  3. NFD, then drop chars of category Mn (accents)
  4. lowercase each char (full Unicode mapping, char by char: no final-sigma rule)
  5. split on whitespace; every punctuation char becomes its own word
     (ASCII punctuation !"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ or Unicode category P*;
     other symbols such as € or © are NOT split off)
  6. per word: more than 100 chars -> [UNK]; else greedy longest-match-first
     over the vocabulary, pieces after the first prefixed with '##'; if some
     position has no match, the whole word is a single [UNK]
"""
import unicodedata

CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
       (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
# Unicode White_Space property (what Rust's char::is_whitespace tests)
WHITE_SPACE = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | \
    {chr(c) for c in range(0x2000, 0x200B)}


def is_cjk(c):
    o = ord(c)
    return any(a <= o <= b for a, b in CJK)


def is_punct(c):
    o = ord(c)
    return (33 <= o <= 47) or (58 <= o <= 64) or (91 <= o <= 96) or (123 <= o <= 126) \
        or unicodedata.category(c).startswith("P")


def normalise(text):
    out = []
    for c in text:
        if c in "\t\n\r":
            out.append(" ")
            continue
        if c == "\0" or c == "\ufffd" or unicodedata.category(c).startswith("C"):
            continue
        if c in WHITE_SPACE:
            c = " "
        out.append(f" {c} " if is_cjk(c) else c)
    s = unicodedata.normalize("NFD", "".join(out))
    s = "".join(ch for ch in s if unicodedata.category(ch) != "Mn")
    return "".join(ch.lower() for ch in s)


def pre_tokenize(text):
    words, cur = [], []
    for c in text:
        if c in WHITE_SPACE:
            if cur:
                words.append("".join(cur))
                cur = []
        elif is_punct(c):
            if cur:
                words.append("".join(cur))
                cur = []
            words.append(c)
        else:
            cur.append(c)
    if cur:
        words.append("".join(cur))
    return words


class WordPiece:
    def __init__(self, vocab):
        self.index = {t: i for i, t in enumerate(vocab)}
        self.unk = self.index["[UNK]"]

    def word(self, w):
        if len(w) > 100:
            return [self.unk]
        ids, start = [], 0
        while start < len(w):
            end = len(w)
            while end > start:
                piece = w[start:end] if start == 0 else "##" + w[start:end]
                if piece in self.index:
                    ids.append(self.index[piece])
                    break
                end -= 1
            if end == start:
                return [self.unk]
            start = end
        return ids

    def encode(self, text):
        return [i for w in pre_tokenize(normalise(text)) for i in self.word(w)]
