//! [`ImageAugmentation`]: the standard CIFAR-10 training augmentation (random crop from a
//! zero-padded image, horizontal flip), drawn from a seeded generator so that a run repeats.
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Random crops and flips of `c × h × w` images (channel-major bytes), as in the usual CIFAR-10
/// recipe (He et al. 2016): pad each side by [`pad`](Self::pad) pixels of zeros, cut a random
/// `h × w` window, and mirror it left to right with probability ½ when [`flip`](Self::flip).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageAugmentation {
    /// Zero padding on each side before the random crop (0: no shift).
    pub pad: usize,
    /// Mirror left to right with probability ½.
    pub flip: bool,
}

impl ImageAugmentation {
    /// The standard CIFAR-10 augmentation: 4-pixel padding and horizontal flips.
    pub fn cifar() -> Self {
        Self { pad: 4, flip: true }
    }

    /// The draw for one image: crop offsets `(dy, dx)` in `0..=2·pad` and the flip.
    pub fn draw(&self, rng: &mut StdRng) -> (usize, usize, bool) {
        let span = 2 * self.pad + 1;
        let dy = rng.random_range(0..span);
        let dx = rng.random_range(0..span);
        let flip = self.flip && rng.random_bool(0.5);
        (dy, dx, flip)
    }

    /// Writes the augmented `image` (`[c, h, w]` bytes) into `out` for the draw `(dy, dx, flip)`:
    /// output pixel `(y, x)` is input pixel `(y + dy − pad, x' + dx − pad)`, where `x' = w − 1 − x`
    /// with the flip and `x` without, or 0 where that falls in the padding.
    pub fn apply(&self, image: &[u8], [c, h, w]: [usize; 3], (dy, dx, flip): (usize, usize, bool), out: &mut [u8]) {
        let pad = self.pad as isize;
        for ch in 0..c {
            let plane = &image[ch * h * w..(ch + 1) * h * w];
            let target = &mut out[ch * h * w..(ch + 1) * h * w];
            for y in 0..h {
                let sy = y as isize + dy as isize - pad;
                for x in 0..w {
                    let xs = if flip { w - 1 - x } else { x };
                    let sx = xs as isize + dx as isize - pad;
                    target[y * w + x] = if (0..h as isize).contains(&sy) && (0..w as isize).contains(&sx) {
                        plane[sy as usize * w + sx as usize]
                    } else {
                        0
                    };
                }
            }
        }
    }

    /// Checks that the padding is smaller than the image (`pad < min(h, w)`).
    pub fn validate(&self, [_, h, w]: [usize; 3]) -> Result<()> {
        if self.pad >= h.min(w) {
            return Err(Error::invalid("pad", format!("{} pixels of padding on a {h} × {w} image", self.pad)));
        }
        Ok(())
    }

    /// The generator of the `call`-th minibatch of a run seeded by `seed`.
    pub(crate) fn batch_rng(seed: u64, call: u64) -> StdRng {
        StdRng::seed_from_u64(seed ^ 0xa11c_e5ed_u64.wrapping_mul(call.wrapping_add(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 × 3 × 3 image with pixel (y, x) = 10·y + x + 1.
    fn tiny() -> Vec<u8> {
        (0..3).flat_map(|y| (0..3).map(move |x| (10 * y + x + 1) as u8)).collect()
    }

    #[test]
    fn centre_draw_without_flip_is_the_identity() {
        let aug = ImageAugmentation { pad: 1, flip: true };
        let mut out = vec![0; 9];
        aug.apply(&tiny(), [1, 3, 3], (1, 1, false), &mut out);
        assert_eq!(out, tiny());
    }

    #[test]
    fn shifts_fill_zeros_and_flip_mirrors() {
        let aug = ImageAugmentation { pad: 1, flip: true };
        let mut out = vec![0; 9];
        // dy = dx = 0: the window starts one pixel above and left of the image.
        aug.apply(&tiny(), [1, 3, 3], (0, 0, false), &mut out);
        assert_eq!(out, vec![0, 0, 0, 0, 1, 2, 0, 11, 12]);
        aug.apply(&tiny(), [1, 3, 3], (1, 1, true), &mut out);
        assert_eq!(out, vec![3, 2, 1, 13, 12, 11, 23, 22, 21]);
        // Flip, then the window shifted right by one: x' = 2 − x, source column x' + 1.
        aug.apply(&tiny(), [1, 3, 3], (1, 2, true), &mut out);
        assert_eq!(out, vec![0, 3, 2, 0, 13, 12, 0, 23, 22]);
    }

    #[test]
    fn draws_cover_every_offset_and_repeat_from_a_seed() {
        let aug = ImageAugmentation::cifar();
        let draws = |seed| {
            let mut rng = ImageAugmentation::batch_rng(seed, 3);
            (0..2000).map(|_| aug.draw(&mut rng)).collect::<Vec<_>>()
        };
        let (a, b, c) = (draws(1), draws(1), draws(2));
        assert_eq!(a, b);
        assert_ne!(a, c);
        for k in 0..=8 {
            assert!(a.iter().any(|d| d.0 == k) && a.iter().any(|d| d.1 == k), "offset {k} never drawn");
        }
        let flips = a.iter().filter(|d| d.2).count();
        assert!((850..1150).contains(&flips), "{flips} flips of 2000");
        assert!(aug.validate([3, 32, 32]).is_ok());
        assert!(ImageAugmentation { pad: 3, flip: false }.validate([1, 3, 3]).is_err());
    }
}
