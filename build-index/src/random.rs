//! The build's one seeded random source: splitmix64, the same sequence for the same seed on
//! every platform, so seeded steps (adaptation's shuffles, IVF training, the eval's typo copies)
//! give the same bytes.

/// A splitmix64 generator; the field is its state (the seed to start from).
pub struct SplitMix(pub u64);

impl SplitMix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_sequence() {
        let (mut a, mut b) = (SplitMix(7), SplitMix(7));
        let x: Vec<u64> = (0..4).map(|_| a.next()).collect();
        let y: Vec<u64> = (0..4).map(|_| b.next()).collect();
        assert_eq!(x, y);
        assert_ne!(x[0], x[1]);
        assert!((0..100).all(|_| a.below(3) < 3 && (0.0..1.0).contains(&a.unit())));
    }
}
