//! CRC-32 (IEEE 802.3, the zlib/PNG one) for the file checksums, bytewise with one 1 KB table
//! built at compile time. crc32fast's slice-by-16 tables were 16 KB of the wasm module that
//! barely compress (about 15 KB gzipped); bytewise is fast enough to check an index once.

const TABLE: [u32; 256] = table();

const fn table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

/// A running CRC-32.
pub(crate) struct Crc32(u32);

impl Crc32 {
    pub(crate) fn new() -> Crc32 {
        Crc32(!0)
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        let mut c = self.0;
        for &b in bytes {
            // The index is masked to 0..=255: never out of bounds.
            c = TABLE[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
        }
        self.0 = c;
    }

    pub(crate) fn finalize(self) -> u32 {
        !self.0
    }
}

/// The CRC-32 of `bytes`.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = Crc32::new();
    crc.update(bytes);
    crc.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    proptest! {
        // crc32fast (a dev-dependency) is the oracle, including for split updates.
        #[test]
        fn equals_crc32fast(bytes in proptest::collection::vec(any::<u8>(), 0..2000), cut in 0usize..2000) {
            prop_assert_eq!(crc32(&bytes), crc32fast::hash(&bytes));
            let cut = cut.min(bytes.len());
            let mut crc = Crc32::new();
            crc.update(&bytes[..cut]);
            crc.update(&bytes[cut..]);
            prop_assert_eq!(crc.finalize(), crc32fast::hash(&bytes));
        }
    }
}
