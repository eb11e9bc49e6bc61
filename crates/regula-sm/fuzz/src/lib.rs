//! Helpers shared by the fuzz targets: a byte reader that splits the fuzzer's input into fields
//! deterministically (short inputs give zero-filled or empty fields, never a skipped run), and a
//! deterministic random source so that every run is reproducible from its input alone.

#![forbid(unsafe_code)]

use regula_sm::sm2;
use regula_sm::sm3::sm3;

/// Reads fields from the front of the fuzz input.
pub struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    /// One byte, 0 when the input is used up.
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&first, rest)) => {
                self.data = rest;
                first
            }
            None => 0,
        }
    }

    /// A big-endian u16, zero-filled when the input is used up.
    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.byte(), self.byte()])
    }

    /// `N` bytes, zero-filled when the input is used up.
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let n = N.min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        out
    }

    /// Up to `len` bytes (fewer when the input runs out).
    pub fn bytes(&mut self, len: usize) -> &'a [u8] {
        let n = len.min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.data)
    }

    pub fn remaining(&self) -> usize {
        self.data.len()
    }
}

/// A deterministic "random" source for SM2 (`k` for encryption and signing): SM3 in counter
/// mode over a seed taken from the fuzz input. Not random at all; fine for fuzzing only.
pub fn deterministic_random(seed: &[u8]) -> impl FnMut(&mut [u8]) -> Result<(), sm2::Error> {
    let seed = sm3(seed);
    let mut counter: u64 = 0;
    move |out: &mut [u8]| {
        for chunk in out.chunks_mut(32) {
            let mut input = [0u8; 40];
            input[..32].copy_from_slice(&seed);
            input[32..].copy_from_slice(&counter.to_be_bytes());
            counter += 1;
            let block = sm3(&input);
            chunk.copy_from_slice(&block[..chunk.len()]);
        }
        Ok(())
    }
}

/// Splits `data` into pieces at the positions given by `cuts` (each taken modulo the length
/// left), so that incremental APIs can be fed the same bytes in fuzz-chosen pieces.
pub fn split_points<'a>(mut data: &'a [u8], cuts: &[u8]) -> Vec<&'a [u8]> {
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    for &cut in cuts {
        let at = if data.is_empty() {
            0
        } else {
            usize::from(cut) % (data.len() + 1)
        };
        let (head, rest) = data.split_at(at);
        pieces.push(head);
        data = rest;
    }
    pieces.push(data);
    pieces
}
