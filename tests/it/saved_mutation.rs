//! The model-file loader against damaged files (issue 95): seeded byte flips, truncations,
//! splices and overwritten length words of a valid file of every model type end in `Ok` or a
//! typed error, never in a panic or an abort, and no load asks for one allocation larger than
//! the file can justify. `lifecycle.rs` calls [`assert_loads_survive_damage`] on each file it
//! saves.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use burn_gp::Error;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Damaged copies loaded per model type (16 files: about 5 300 cases in all). Files over
/// [`LARGE`] bytes (the paper's MNIST networks, 64 MB) get fewer, at least [`FEW`]: each damaged
/// copy is written to disk.
const CASES: usize = 400;
/// Bytes of damaged copies written per model type, at most (unless that leaves fewer than [`FEW`]).
const LARGE: usize = 32 << 20;
/// Least damaged copies per model type.
const FEW: usize = 8;

/// The largest single allocation a load of a damaged `len`-byte file may ask for: what reading
/// and casting a valid file of that size needs (a few copies at 8 bytes a cell of 2), plus the
/// backend's fixed buffers.
fn bound(len: usize) -> usize {
    (64 << 20) + 32 * len
}

thread_local! {
    /// The largest allocation this thread asked for since the last reset.
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    /// Whether this thread is loading a damaged file: allocations beyond `REFUSE` fail then.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Inside a guarded load, an allocation this large is refused (Rust then aborts the process
/// naming its size) rather than left to exhaust the machine.
const REFUSE: usize = 4 << 30;

/// The system allocator, recording the largest allocation each thread asks for (the test
/// binary's global allocator).
pub struct TrackingAllocator;

/// Records an allocation of `size` bytes; false if a guarded load must not have it.
fn note(size: usize) -> bool {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
    !(size > REFUSE && GUARDED.try_with(Cell::get).unwrap_or(false))
}

// SAFETY: every call is forwarded to `System` unchanged, or refused with a null pointer, which
// `GlobalAlloc` allows.
unsafe impl GlobalAlloc for TrackingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if note(layout.size()) {
            unsafe { System.alloc(layout) }
        } else {
            std::ptr::null_mut()
        }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if note(layout.size()) {
            unsafe { System.alloc_zeroed(layout) }
        } else {
            std::ptr::null_mut()
        }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if note(new_size) {
            unsafe { System.realloc(ptr, layout, new_size) }
        } else {
            std::ptr::null_mut()
        }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// One damaged copy of `bytes`, drawn from `rng`, and what was done to it.
fn damage(bytes: &[u8], case: usize, rng: &mut StdRng) -> (Vec<u8>, String) {
    let n = bytes.len();
    let mut out = bytes.to_vec();
    match case % 4 {
        0 => {
            let flips = rng.random_range(1..=8);
            for _ in 0..flips {
                out[rng.random_range(0..n)] = rng.random();
            }
            (out, format!("{flips} random bytes"))
        }
        1 => {
            let keep = rng.random_range(0..n);
            out.truncate(keep);
            (out, format!("truncated to {keep} bytes"))
        }
        2 => {
            // Splice: the bytes before i, then those from j (a segment dropped or repeated).
            let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
            let spliced = [&bytes[..i], &bytes[j..]].concat();
            (spliced, format!("bytes ..{i} then {j}.."))
        }
        _ => {
            // A length or count field overwritten with a large or odd number.
            let words = [u64::MAX, 1 << 63, 1 << 40, 1 << 32, (1 << 32) - 1, 1 << 28, 1 << 20, 65_537, 0, rng.random()];
            let word = words[rng.random_range(0..words.len())].to_le_bytes();
            let width = if rng.random() { 8 } else { 4 };
            let at = rng.random_range(0..n.saturating_sub(width).max(1));
            let end = (at + width).min(n);
            out[at..end].copy_from_slice(&word[..end - at]);
            (out, format!("{width}-byte word at {at} set to {}", u64::from_le_bytes(word)))
        }
    }
}

/// Loads [`CASES`] (or fewer, see [`LARGE`]) seeded damaged copies of the valid model file at `path` with `load`: each must
/// end in `Ok` or a typed [`Error`], without a panic, and with no allocation beyond [`bound`].
pub fn assert_loads_survive_damage<T>(name: &str, path: &Path, load: impl Fn(&Path) -> burn_gp::Result<T>) {
    let bytes = std::fs::read(path).unwrap();
    let cases = CASES.min(LARGE / bytes.len()).max(FEW);
    let damaged = path.with_extension("damaged");
    let seed = name.bytes().fold(95u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let mut rng = StdRng::seed_from_u64(seed);
    let start = std::time::Instant::now();
    let (mut ok, mut typed, mut failures, mut largest) = (0, [0usize; 4], Vec::new(), 0usize);
    LARGEST.set(0);
    load(path).unwrap_or_else(|e| panic!("{name}: the undamaged file does not load: {e}"));
    let undamaged = LARGEST.get();
    for case in 0..cases {
        let (copy, what) = damage(&bytes, case, &mut rng);
        std::fs::write(&damaged, &copy).unwrap();
        LARGEST.set(0);
        GUARDED.set(true);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| load(&damaged)));
        GUARDED.set(false);
        let asked = LARGEST.get();
        largest = largest.max(asked);
        match outcome {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(e)) => {
                typed[match e {
                    Error::BadFormat { .. } => 0,
                    Error::ModelMismatch { .. } => 1,
                    Error::Io { .. } => 3,
                    _ => 2,
                }] += 1
            }
            Err(_) => failures.push(format!("case {case} ({what}): panicked")),
        }
        if asked > bound(bytes.len()) {
            failures.push(format!("case {case} ({what}): asked for {asked} bytes at once"));
        }
    }
    let _ = std::fs::remove_file(&damaged);
    eprintln!(
        "{name}: {cases} damaged copies of {} bytes: {ok} loaded, {} BadFormat, {} ModelMismatch, {} other typed errors, \
         {} Io; largest allocation {largest} bytes (undamaged file: {undamaged}); {:.1} s",
        bytes.len(),
        typed[0],
        typed[1],
        typed[2],
        typed[3],
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{name}: {} of {cases} damaged files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
