//! The cell budget of a load: a damaged file must not make the loader allocate more than its
//! bytes can justify (issue 95). While [`within`] runs a [`Blueprint::rebuild`](super::Blueprint),
//! every tensor the skeleton allocates from the description's sizes is charged through
//! [`cells`] against the number of cells the file's weights could hold, so a flipped size field
//! is a typed error before anything of that size is allocated.
use std::cell::Cell;

use crate::error::{Error, Result};

/// Largest tensor a description may ask for, budget or not (2²⁸ cells).
pub(super) const MAX_CELLS: usize = 1 << 28;

/// The narrowest cell a burnpack record stores (f16 / bf16): a record of `b` bytes holds at
/// most `b / 2` cells.
const MIN_CELL_BYTES: usize = 2;

thread_local! {
    /// Cells the current load may still allocate (`None` outside a load).
    static LEFT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Restores the enclosing budget when a load ends, by return or by unwinding.
struct Restore(Option<usize>);

impl Drop for Restore {
    fn drop(&mut self) {
        LEFT.set(self.0);
    }
}

/// The number of cells that a record of `weight_bytes` bytes can hold.
pub(super) fn cells_in(weight_bytes: usize) -> usize {
    weight_bytes / MIN_CELL_BYTES
}

/// Runs `f` (a rebuild) with a budget of the cells `weight_bytes` of weights can hold.
pub(super) fn within<T>(weight_bytes: usize, f: impl FnOnce() -> T) -> T {
    let _restore = Restore(LEFT.replace(Some(cells_in(weight_bytes))));
    f()
}

/// The number of cells of a tensor of shape `dims`, which a rebuild is about to allocate:
/// charged to the current load's budget. A product that overflows, exceeds [`MAX_CELLS`] or
/// exceeds what is left of the budget is [`Error::InvalidArgument`] naming the shape.
pub(crate) fn cells(dims: &[usize]) -> Result<usize> {
    let n = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&c| c <= MAX_CELLS)
        .ok_or_else(|| Error::invalid("model file", format!("implausible shape {dims:?}")))?;
    match LEFT.get() {
        Some(left) if n > left => Err(Error::invalid(
            "model file",
            format!(
                "a tensor of shape {dims:?} ({n} cells) is more than the file's weights can hold ({left} cells left)"
            ),
        )),
        Some(left) => {
            LEFT.set(Some(left - n));
            Ok(n)
        }
        None => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_cannot_allocate_more_cells_than_its_weights_hold() {
        // Outside a load only the absolute bound applies.
        assert_eq!(cells(&[1000, 1000]).unwrap(), 1_000_000);
        assert!(cells(&[1 << 20, 1 << 20]).is_err());
        assert!(cells(&[usize::MAX, 2]).is_err());
        // 400 bytes hold 200 cells: 150 fit, 60 more do not, 50 do.
        within(400, || {
            assert_eq!(cells(&[10, 15]).unwrap(), 150);
            assert!(matches!(cells(&[6, 10]), Err(Error::InvalidArgument { .. })));
            assert_eq!(cells(&[50]).unwrap(), 50);
            assert!(cells(&[1]).is_err());
        });
        // The budget ends with the load, even one that panics.
        assert!(cells(&[1000]).is_ok());
        let _ = std::panic::catch_unwind(|| within(8, || panic!("a rebuild that panics")));
        assert!(cells(&[1000]).is_ok());
    }
}
