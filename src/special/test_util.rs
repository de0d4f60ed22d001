//! Helpers shared by the special-function tests.

/// `|got − want| / max(|want|, f64::MIN_POSITIVE)`: the relative error, measured against the
/// smallest normal number when the reference is zero or subnormal; equal values (infinities of
/// the same sign included) give 0.
pub(crate) fn rel_err(got: f64, want: f64) -> f64 {
    if got == want {
        0.0
    } else {
        (got - want).abs() / want.abs().max(f64::MIN_POSITIVE)
    }
}

/// Checks `f` against a table of `(x, f(x))` references to [`rel_err`] `≤ tol`, printing the
/// largest error seen (shown by `--nocapture` runs).
pub(crate) fn check_table(name: &str, f: impl Fn(f64) -> f64, table: &[(f64, f64)], tol: f64) {
    let mut worst = 0.0_f64;
    for &(x, want) in table {
        let got = f(x);
        let e = rel_err(got, want);
        assert!(e <= tol, "{name}({x:e}) = {got:e}, reference {want:e}, relative error {e:e} > {tol:e}");
        worst = worst.max(e);
    }
    eprintln!("{name}: max relative error {worst:.2e} over {} references", table.len());
}
