//! Reading a fuzz input as a sequence of choices, shared by the fuzz targets.

/// Reads the fuzz input front to back; an exhausted input reads as zeros.
pub struct Input<'a>(pub &'a [u8]);

impl<'a> Input<'a> {
    pub fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        first
    }
    pub fn bytes(&mut self, max: usize) -> &'a [u8] {
        let len = (self.byte() as usize).min(max).min(self.0.len());
        let (taken, rest) = self.0.split_at(len);
        self.0 = rest;
        taken
    }
    pub fn pick<'b, T>(&mut self, items: &'b [T]) -> &'b T {
        &items[self.byte() as usize % items.len()]
    }
}
