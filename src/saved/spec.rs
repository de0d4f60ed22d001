//! [`Spec`]: the description of a model (its type, shapes and constants) stored in front of its
//! weights in a saved model file, in a small self-describing binary encoding.
use crate::error::{Error, Result};

/// The part of a model a file must hold besides its trained tensors: a kind tag, sizes, real
/// constants and the descriptions of its parts (kernel, inducing variables, likelihood, …).
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// What the described piece is (`"Rbf"`, `"InducingPoints"`, `"Svgp"`, …).
    pub kind: String,
    /// Sizes and counts (dimensions, numbers of points, settings that are integers).
    pub sizes: Vec<usize>,
    /// Real constants (jitter, fixed hyperparameters, host-side state).
    pub values: Vec<f64>,
    /// The pieces it is built from, in a fixed order per kind.
    pub parts: Vec<Spec>,
}

/// Deepest nesting a file may describe (a guard against corrupt or hostile files).
const MAX_DEPTH: usize = 32;

impl Spec {
    /// A description of `kind` with no sizes, values or parts yet.
    pub fn new(kind: &str) -> Self {
        Self { kind: kind.into(), sizes: Vec::new(), values: Vec::new(), parts: Vec::new() }
    }
    /// Adds sizes.
    pub fn sizes(mut self, sizes: &[usize]) -> Self {
        self.sizes.extend_from_slice(sizes);
        self
    }
    /// Adds values.
    pub fn values(mut self, values: &[f64]) -> Self {
        self.values.extend_from_slice(values);
        self
    }
    /// Adds a part.
    pub fn part(mut self, part: Spec) -> Self {
        self.parts.push(part);
        self
    }

    /// Errors unless this is a description of `kind` with `sizes` sizes, `values` values and
    /// `parts` parts (`None`: any number).
    pub fn expect(&self, kind: &str, sizes: Option<usize>, values: Option<usize>, parts: Option<usize>) -> Result<()> {
        let fits = |want: Option<usize>, got: usize| want.is_none_or(|w| w == got);
        if self.kind != kind {
            return Err(Error::invalid("model file", format!("expected a {kind}, the file describes a {}", self.kind)));
        }
        if !(fits(sizes, self.sizes.len()) && fits(values, self.values.len()) && fits(parts, self.parts.len())) {
            return Err(Error::invalid(
                "model file",
                format!(
                    "the {kind} description has {} sizes, {} values and {} parts; expected {sizes:?}, {values:?}, {parts:?}",
                    self.sizes.len(),
                    self.values.len(),
                    self.parts.len()
                ),
            ));
        }
        Ok(())
    }

    /// The binary encoding: kind, sizes, values, parts, each length-prefixed (little endian).
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        put_len(out, self.kind.len());
        out.extend_from_slice(self.kind.as_bytes());
        put_len(out, self.sizes.len());
        self.sizes.iter().for_each(|&s| out.extend_from_slice(&(s as u64).to_le_bytes()));
        put_len(out, self.values.len());
        self.values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        put_len(out, self.parts.len());
        self.parts.iter().for_each(|p| p.encode(out));
    }

    /// Decodes one description from the front of `bytes`; returns it and the bytes it used. A
    /// reason string describes a truncated or malformed encoding.
    pub(crate) fn decode(bytes: &[u8]) -> std::result::Result<(Self, usize), String> {
        let mut reader = Reader { bytes, at: 0 };
        let spec = reader.spec(0)?;
        Ok((spec, reader.at))
    }
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

/// A bounds-checked cursor over the encoded bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> std::result::Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("model description truncated at byte {}", self.at))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }
    fn len(&mut self, max: usize) -> std::result::Result<usize, String> {
        let raw = self.take(4)?;
        let n = u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]) as usize;
        // Every element takes at least one byte, so a count beyond the bytes left is corrupt.
        if n > max.min(self.bytes.len() - self.at) {
            return Err(format!("implausible count {n} at byte {}", self.at - 4));
        }
        Ok(n)
    }
    fn word(&mut self) -> std::result::Result<[u8; 8], String> {
        let raw = self.take(8)?;
        let mut w = [0u8; 8];
        w.copy_from_slice(raw);
        Ok(w)
    }
    fn spec(&mut self, depth: usize) -> std::result::Result<Spec, String> {
        if depth > MAX_DEPTH {
            return Err(format!("model description nested deeper than {MAX_DEPTH}"));
        }
        let n = self.len(256)?;
        let kind = String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "kind is not UTF-8".to_string())?;
        let n = self.len(usize::MAX)?;
        let sizes = (0..n)
            .map(|_| self.word().map(|w| u64::from_le_bytes(w) as usize))
            .collect::<std::result::Result<_, _>>()?;
        let n = self.len(usize::MAX)?;
        let values = (0..n).map(|_| self.word().map(f64::from_le_bytes)).collect::<std::result::Result<_, _>>()?;
        let n = self.len(usize::MAX)?;
        let parts = (0..n).map(|_| self.spec(depth + 1)).collect::<std::result::Result<_, _>>()?;
        Ok(Spec { kind, sizes, values, parts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_round_trips_and_corrupt_bytes_are_refused() {
        let spec =
            Spec::new("Svgp").sizes(&[3, 64]).values(&[1e-6, f64::MIN_POSITIVE]).part(Spec::new("Rbf").sizes(&[4]));
        let mut bytes = Vec::new();
        spec.encode(&mut bytes);
        let (back, used) = Spec::decode(&bytes).unwrap();
        assert_eq!((back, used), (spec, bytes.len()));
        for cut in 0..bytes.len() {
            assert!(Spec::decode(&bytes[..cut]).is_err(), "truncated at {cut}");
        }
        let mut huge = bytes.clone();
        huge[4 + 4..4 + 4 + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Spec::decode(&huge).is_err());
    }
}
