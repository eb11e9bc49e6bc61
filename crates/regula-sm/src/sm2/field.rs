//! Arithmetic modulo the SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1 (GB/T 32918.5-2017
//! §3), written for this prime instead of a generic modulus, for verification
//! ([`super::vartime`]) and for the constant-time point multiplications ([`super::point`]).
//!
//! Elements are kept in Montgomery form `a·R mod p` with R = 2^256 (P. L. Montgomery,
//! "Modular multiplication without trial division", Math. Comp. 44, 1985), as four
//! little-endian 64-bit limbs, always fully reduced. Multiplication is the separated
//! operand scanning method (Koç, Acar, Kaliski, "Analyzing and comparing Montgomery
//! multiplication algorithms", IEEE Micro 16(3), 1996): a full 512-bit product, then four
//! word-by-word reduction steps. The prime's shape makes each step multiplication-free:
//! p ≡ -1 (mod 2^64), so the quotient digit `-t·p⁻¹ mod 2^64` is the low limb `t` itself, and
//! `(t + m·p) / 2^64 = ⌊t / 2^64⌋ + m·(2^192 - 2^160 - 2^32 + 1)` is a few shifted additions.
//!
//! On x86-64 processors with BMI2 and ADX, [`FieldElement::mul`] and [`FieldElement::square`]
//! run the same algorithm as inline assembly (`field_x86.rs`: `mulx` and the two carry chains
//! of `adcx`/`adox`), about a third less time than the compiled Rust. The CPU is asked once
//! and the answer cached in a static; each call then branches on it, a branch that depends on
//! the machine only and is always predicted (calling the assembly unconditionally measured no
//! faster in `benches/sm2.rs`, so the point arithmetic is not duplicated per backend). Other
//! processors, other architectures and `--cfg sm4_backend="soft"` builds (the crate's
//! portable, `unsafe`-free switch) use the Rust code below, which the unit tests also check on
//! processors that have the assembly.
//!
//! Every operation runs in time independent of the values (carries are masks, the final
//! subtractions are selected with masks), so this type serves secret data too; only
//! [`FieldElement::from_bytes`] reveals whether its input is canonical, and
//! [`FieldElement::is_zero`] and `==` return a `bool` the caller must only branch on when the
//! answer is public.

#[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
#[path = "field_x86.rs"]
mod x86;

/// p, little-endian limbs.
const P: [u64; 4] = [
    0xffff_ffff_ffff_ffff,
    0xffff_ffff_0000_0000,
    0xffff_ffff_ffff_ffff,
    0xffff_fffe_ffff_ffff,
];

/// R mod p: the Montgomery form of 1.
const R: [u64; 4] = [
    0x0000_0000_0000_0001,
    0x0000_0000_ffff_ffff,
    0x0000_0000_0000_0000,
    0x0000_0001_0000_0000,
];

/// R² mod p: multiplying by it enters Montgomery form.
const R2: [u64; 4] = [
    0x0000_0002_0000_0003,
    0x0000_0002_ffff_ffff,
    0x0000_0001_0000_0001,
    0x0000_0004_0000_0002,
];

/// An integer modulo p, in Montgomery form and below p.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldElement([u64; 4]);

/// `a + b + carry` as (low word, carry out), carry in {0, 1}.
#[inline(always)]
const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let sum = a as u128 + b as u128 + carry as u128;
    (sum as u64, (sum >> 64) as u64)
}

/// `a - b - borrow` as (low word, borrow out), borrow in {0, 1}.
#[inline(always)]
const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    // Two overflowing subtractions compile to a clean `sbb` chain, unlike a u128 difference.
    let (difference, borrow_a) = a.overflowing_sub(b);
    let (difference, borrow_b) = difference.overflowing_sub(borrow);
    (difference, (borrow_a | borrow_b) as u64)
}

/// `acc + a·b + carry` as (low word, high word); never overflows 128 bits.
#[inline(always)]
const fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let sum = acc as u128 + a as u128 * b as u128 + carry as u128;
    (sum as u64, (sum >> 64) as u64)
}

/// `a` where `mask` is all ones, `b` where it is all zeros, without a branch.
#[inline(always)]
fn select(mask: u64, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    [
        (a[0] & mask) | (b[0] & !mask),
        (a[1] & mask) | (b[1] & !mask),
        (a[2] & mask) | (b[2] & !mask),
        (a[3] & mask) | (b[3] & !mask),
    ]
}

/// `a - b` over 256 bits, with the borrow out.
#[inline(always)]
fn sub_limbs(a: &[u64; 4], b: &[u64; 4]) -> ([u64; 4], u64) {
    let (d0, borrow) = sbb(a[0], b[0], 0);
    let (d1, borrow) = sbb(a[1], b[1], borrow);
    let (d2, borrow) = sbb(a[2], b[2], borrow);
    let (d3, borrow) = sbb(a[3], b[3], borrow);
    ([d0, d1, d2, d3], borrow)
}

/// The 257-bit value `carry·2^256 + value`, known to be below 2p, reduced below p.
#[inline(always)]
fn subtract_p_if_needed(value: &[u64; 4], carry: u64) -> [u64; 4] {
    // value - p = value + (2^256 - p) - 2^256, and 2^256 - p = R mod p: an addition, whose
    // carry out says whether value ≥ p.
    let (r0, above) = adc(value[0], R[0], 0);
    let (r1, above) = adc(value[1], R[1], above);
    let (r2, above) = adc(value[2], R[2], above);
    let (r3, above) = adc(value[3], R[3], above);
    let keep = ((above | carry) ^ 1).wrapping_neg();
    select(keep, value, &[r0, r1, r2, r3])
}

/// Montgomery reduction `t·R⁻¹ mod p` of a 512-bit `t = low + high·2^256` with `high < p`.
#[inline(always)]
fn reduce(low: [u64; 4], high: &[u64; 4]) -> [u64; 4] {
    // Four steps w ← (w + m·p) / 2^64 with m = w mod 2^64 clear the low half: the result,
    // (low + M·p) / 2^256 for some M < 2^256, is at most p. Each intermediate stays below
    // 2^192 + p < 2^256, so four limbs hold it and nothing carries out of the top limb.
    let mut w = low;
    for _ in 0..4 {
        let m = w[0];
        // (w + m·p) / 2^64 = ⌊w / 2^64⌋ + m·(2^192 - 2^160 - 2^32 + 1), exactly, since w's low
        // limb is m. In limbs, that multiple of m is [m, 0, 0, m] minus m·2^32 + m·2^160,
        // which spreads m's two 32-bit halves as [m << 32, m >> 32, m << 32, m >> 32].
        let (shifted_low, shifted_high) = (m << 32, m >> 32);
        let (d0, borrow) = sbb(m, shifted_low, 0);
        let (d1, borrow) = sbb(0, shifted_high, borrow);
        let (d2, borrow) = sbb(0, shifted_low, borrow);
        let d3 = m.wrapping_sub(shifted_high).wrapping_sub(borrow);
        let (w0, carry) = adc(w[1], d0, 0);
        let (w1, carry) = adc(w[2], d1, carry);
        let (w2, carry) = adc(w[3], d2, carry);
        w = [w0, w1, w2, d3.wrapping_add(carry)];
    }
    // w ≤ p and high < p, so the sum is below 2p.
    let (s0, carry) = adc(w[0], high[0], 0);
    let (s1, carry) = adc(w[1], high[1], carry);
    let (s2, carry) = adc(w[2], high[2], carry);
    let (s3, carry) = adc(w[3], high[3], carry);
    subtract_p_if_needed(&[s0, s1, s2, s3], carry)
}

impl FieldElement {
    pub(crate) const ZERO: FieldElement = FieldElement([0; 4]);
    pub(crate) const ONE: FieldElement = FieldElement(R);

    /// The element of a 32-byte big-endian integer, or `None` unless it is below p.
    pub(crate) fn from_bytes(bytes: &[u8; 32]) -> Option<FieldElement> {
        let mut limbs = [0u64; 4];
        for (limb, chunk) in limbs.iter_mut().zip(bytes.rchunks_exact(8)) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            *limb = u64::from_be_bytes(word);
        }
        let (_, below_p) = sub_limbs(&limbs, &P);
        (below_p == 1).then(|| FieldElement(limbs).mul(&FieldElement(R2)))
    }

    pub(crate) fn is_zero(&self) -> bool {
        let [a0, a1, a2, a3] = self.0;
        (a0 | a1 | a2 | a3) == 0
    }

    pub(crate) fn add(&self, rhs: &FieldElement) -> FieldElement {
        let (a, b) = (&self.0, &rhs.0);
        let (s0, carry) = adc(a[0], b[0], 0);
        let (s1, carry) = adc(a[1], b[1], carry);
        let (s2, carry) = adc(a[2], b[2], carry);
        let (s3, carry) = adc(a[3], b[3], carry);
        FieldElement(subtract_p_if_needed(&[s0, s1, s2, s3], carry))
    }

    pub(crate) fn double(&self) -> FieldElement {
        self.add(self)
    }

    pub(crate) fn sub(&self, rhs: &FieldElement) -> FieldElement {
        let (difference, borrow) = sub_limbs(&self.0, &rhs.0);
        // Add p back when the subtraction wrapped.
        let mask = borrow.wrapping_neg();
        let (d0, carry) = adc(difference[0], P[0] & mask, 0);
        let (d1, carry) = adc(difference[1], P[1] & mask, carry);
        let (d2, carry) = adc(difference[2], P[2] & mask, carry);
        let (d3, _) = adc(difference[3], P[3] & mask, carry);
        FieldElement([d0, d1, d2, d3])
    }

    /// `self / 2`: `self` itself when even, else `self + p` (then even), shifted right.
    pub(crate) fn halve(&self) -> FieldElement {
        let a = &self.0;
        let odd = (a[0] & 1).wrapping_neg();
        let (s0, carry) = adc(a[0], P[0] & odd, 0);
        let (s1, carry) = adc(a[1], P[1] & odd, carry);
        let (s2, carry) = adc(a[2], P[2] & odd, carry);
        let (s3, carry) = adc(a[3], P[3] & odd, carry);
        FieldElement([
            (s0 >> 1) | (s1 << 63),
            (s1 >> 1) | (s2 << 63),
            (s2 >> 1) | (s3 << 63),
            (s3 >> 1) | (carry << 63),
        ])
    }

    pub(crate) fn neg(&self) -> FieldElement {
        FieldElement::ZERO.sub(self)
    }

    /// The product; on Montgomery forms aR·bR·R⁻¹ = abR, so no conversion is needed between
    /// operations.
    #[inline(always)]
    pub(crate) fn mul(&self, rhs: &FieldElement) -> FieldElement {
        #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
        if let Some(token) = x86::AdxToken::cached() {
            return FieldElement(x86::mul(token, &self.0, &rhs.0));
        }
        self.mul_portable(rhs)
    }

    /// `self²`.
    #[inline(always)]
    pub(crate) fn square(&self) -> FieldElement {
        #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
        if let Some(token) = x86::AdxToken::cached() {
            return FieldElement(x86::square(token, &self.0));
        }
        self.square_portable()
    }

    /// [`FieldElement::mul`] in portable Rust.
    #[inline(always)]
    fn mul_portable(&self, rhs: &FieldElement) -> FieldElement {
        let (a, b) = (&self.0, &rhs.0);
        // Schoolbook 4×4-limb product, one row per limb of a.
        let (t0, carry) = mac(0, a[0], b[0], 0);
        let (t1, carry) = mac(0, a[0], b[1], carry);
        let (t2, carry) = mac(0, a[0], b[2], carry);
        let (t3, t4) = mac(0, a[0], b[3], carry);

        let (t1, carry) = mac(t1, a[1], b[0], 0);
        let (t2, carry) = mac(t2, a[1], b[1], carry);
        let (t3, carry) = mac(t3, a[1], b[2], carry);
        let (t4, t5) = mac(t4, a[1], b[3], carry);

        let (t2, carry) = mac(t2, a[2], b[0], 0);
        let (t3, carry) = mac(t3, a[2], b[1], carry);
        let (t4, carry) = mac(t4, a[2], b[2], carry);
        let (t5, t6) = mac(t5, a[2], b[3], carry);

        let (t3, carry) = mac(t3, a[3], b[0], 0);
        let (t4, carry) = mac(t4, a[3], b[1], carry);
        let (t5, carry) = mac(t5, a[3], b[2], carry);
        let (t6, t7) = mac(t6, a[3], b[3], carry);

        FieldElement(reduce([t0, t1, t2, t3], &[t4, t5, t6, t7]))
    }

    /// [`FieldElement::square`] in portable Rust, with 10 limb products instead of the 16 of
    /// [`FieldElement::mul`].
    #[inline(always)]
    fn square_portable(&self) -> FieldElement {
        let a = &self.0;
        // Each cross product a_i·a_j (i < j) once, then doubled, then the squares a_i².
        let (t1, carry) = mac(0, a[0], a[1], 0);
        let (t2, carry) = mac(0, a[0], a[2], carry);
        let (t3, t4) = mac(0, a[0], a[3], carry);

        let (t3, carry) = mac(t3, a[1], a[2], 0);
        let (t4, t5) = mac(t4, a[1], a[3], carry);

        let (t5, t6) = mac(t5, a[2], a[3], 0);

        let t7 = t6 >> 63;
        let t6 = (t6 << 1) | (t5 >> 63);
        let t5 = (t5 << 1) | (t4 >> 63);
        let t4 = (t4 << 1) | (t3 >> 63);
        let t3 = (t3 << 1) | (t2 >> 63);
        let t2 = (t2 << 1) | (t1 >> 63);
        let t1 = t1 << 1;

        let (t0, high) = mac(0, a[0], a[0], 0);
        let (t1, carry) = adc(t1, high, 0);
        let (low, high) = mac(0, a[1], a[1], 0);
        let (t2, carry) = adc(t2, low, carry);
        let (t3, carry) = adc(t3, high, carry);
        let (low, high) = mac(0, a[2], a[2], 0);
        let (t4, carry) = adc(t4, low, carry);
        let (t5, carry) = adc(t5, high, carry);
        let (low, high) = mac(0, a[3], a[3], 0);
        let (t6, carry) = adc(t6, low, carry);
        let (t7, _) = adc(t7, high, carry);

        FieldElement(reduce([t0, t1, t2, t3], &[t4, t5, t6, t7]))
    }
}

/// An all-ones mask when `value` is zero, all zeros otherwise, without a branch. The mask goes
/// through [`core::hint::black_box`] so that the optimiser cannot turn its uses back into a
/// branch.
#[inline(always)]
pub(crate) fn mask_if_zero(value: u64) -> u64 {
    // value | -value has its top bit set exactly when value ≠ 0.
    let nonzero = (value | value.wrapping_neg()) >> 63;
    core::hint::black_box(nonzero.wrapping_sub(1))
}

impl FieldElement {
    /// `a` where `mask` is all ones, `b` where it is all zeros (constant time).
    #[inline(always)]
    pub(crate) fn select(mask: u64, a: &FieldElement, b: &FieldElement) -> FieldElement {
        FieldElement(select(mask, &a.0, &b.0))
    }

    /// An all-ones mask when `self` is zero, all zeros otherwise (constant time).
    #[inline(always)]
    pub(crate) fn zero_mask(&self) -> u64 {
        let [a0, a1, a2, a3] = self.0;
        mask_if_zero(a0 | a1 | a2 | a3)
    }

    /// Overwrites `self` with `other` where `mask` is all ones (constant time).
    #[inline(always)]
    pub(crate) fn assign_if(&mut self, mask: u64, other: &FieldElement) {
        *self = FieldElement::select(mask, other, self);
    }

    /// The canonical 32-byte big-endian encoding.
    pub(crate) fn to_bytes(self) -> [u8; 32] {
        // Multiplying by 1 (outside Montgomery form) leaves Montgomery form.
        let limbs = reduce(self.0, &[0; 4]);
        let mut out = [0u8; 32];
        for (chunk, limb) in out.rchunks_exact_mut(8).zip(limbs) {
            chunk.copy_from_slice(&limb.to_be_bytes());
        }
        out
    }

    /// Wipes the limbs (for secret coordinates).
    pub(crate) fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }

    /// `self^(2^count)`.
    fn square_times(&self, count: u32) -> FieldElement {
        let mut result = *self;
        for _ in 0..count {
            result = result.square();
        }
        result
    }

    /// `self^(p-2)`, the inverse of a non-zero element (Fermat), and 0 for 0. A fixed chain of
    /// 352 squarings and 13 multiplications built from runs of ones: p - 2 is, from the top,
    /// 31 ones, a zero, 128 ones, 32 zeros, 62 ones, a zero and a one.
    pub(crate) fn invert(&self) -> FieldElement {
        let x = self;
        // x_k = x^(2^k - 1)
        let x2 = x.square().mul(x);
        let x3 = x2.square().mul(x);
        let x6 = x3.square_times(3).mul(&x3);
        let x12 = x6.square_times(6).mul(&x6);
        let x24 = x12.square_times(12).mul(&x12);
        let x30 = x24.square_times(6).mul(&x6);
        let x31 = x30.square().mul(x);
        let x62 = x31.square_times(31).mul(&x31);
        let x64 = x62.square_times(2).mul(&x2);
        let x128 = x64.square_times(64).mul(&x64);
        let result = x31.square_times(1 + 128).mul(&x128);
        let result = result.square_times(32 + 62).mul(&x62);
        result.square_times(2).mul(x)
    }
}

impl PartialEq for FieldElement {
    /// Constant-time: both sides are reduced, so equal elements have equal limbs.
    fn eq(&self, other: &FieldElement) -> bool {
        let difference = self
            .0
            .iter()
            .zip(other.0)
            .fold(0, |acc, (a, b)| acc | (a ^ b));
        difference == 0
    }
}

impl Eq for FieldElement {}

#[cfg(test)]
mod tests {
    use super::*;
    use sm2::elliptic_curve::ff::PrimeField;
    use sm2::elliptic_curve::hazmat::FieldArithmetic;

    /// The `sm2` crate's field (fiat-crypto), the reference.
    type Reference = <sm2::Sm2 as FieldArithmetic>::FieldElement;

    fn reference(bytes: &[u8; 32]) -> Reference {
        Option::from(Reference::from_repr((*bytes).into())).expect("below p")
    }

    fn bytes_of(reference: &Reference) -> [u8; 32] {
        reference.to_repr().into()
    }

    fn be(limbs: [u64; 4]) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, limb) in out.rchunks_exact_mut(8).zip(limbs) {
            chunk.copy_from_slice(&limb.to_be_bytes());
        }
        out
    }

    /// p - k for small k.
    fn p_minus(k: u64) -> [u8; 32] {
        let (limbs, _) = sub_limbs(&P, &[k, 0, 0, 0]);
        be(limbs)
    }

    /// Edge values below p: small ones, values just below p, values whose limbs are all or
    /// mostly ones (long carry chains), and the Montgomery constants themselves.
    fn edge_values() -> Vec<[u8; 32]> {
        let mut values = vec![
            be([0; 4]),
            be([1, 0, 0, 0]),
            be([2, 0, 0, 0]),
            be(R),
            be(R2),
        ];
        values.extend([1, 2, 3, 4, 0xffff_ffff, 1 << 32].map(p_minus));
        values.extend(
            [
                [u64::MAX, u64::MAX, u64::MAX, 0xffff_fffe_ffff_fffe],
                [u64::MAX, u64::MAX, u64::MAX, 0xffff_fffe_0000_0000],
                [0, 0, 0, 0xffff_fffe_ffff_ffff],
                [u64::MAX, 0, u64::MAX, 0xffff_fffe_ffff_ffff],
                [u64::MAX, u64::MAX, 0, 0],
                [u64::MAX, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff],
                [0, 0xffff_ffff_0000_0000, 0, 0],
                [1 << 63, 1 << 63, 1 << 63, 1 << 63],
            ]
            .map(be),
        );
        values
    }

    /// Deterministic xorshift values, reduced below p by clearing the top bit.
    fn random_values(count: usize) -> Vec<[u8; 32]> {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        (0..count)
            .map(|index| {
                let mut out = [0u8; 32];
                for byte in out.iter_mut() {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    *byte = state as u8;
                }
                // Every fourth value keeps the top bit, then is kept only when below p.
                if index % 4 != 0 || FieldElement::from_bytes(&out).is_none() {
                    out[0] &= 0x7f;
                }
                out
            })
            .collect()
    }

    fn inputs() -> Vec<[u8; 32]> {
        let mut values = edge_values();
        values.extend(random_values(200));
        values
    }

    fn ours(bytes: &[u8; 32]) -> FieldElement {
        FieldElement::from_bytes(bytes).expect("below p")
    }

    #[test]
    fn encoding_round_trips_and_refuses_p_and_above() {
        for bytes in inputs() {
            assert_eq!(ours(&bytes).to_bytes(), bytes);
        }
        for refused in [
            be(P),
            be([0, 0, 0, 0xffff_ffff_0000_0000]),
            be([u64::MAX; 4]),
            be([0, 0xffff_ffff_0000_0001, u64::MAX, 0xffff_fffe_ffff_ffff]),
        ] {
            assert!(FieldElement::from_bytes(&refused).is_none());
        }
        assert_eq!(FieldElement::ONE.to_bytes(), be([1, 0, 0, 0]));
        assert_eq!(FieldElement::ZERO.to_bytes(), [0; 32]);
    }

    #[test]
    fn binary_operations_match_the_reference() {
        let values = inputs();
        let edges = edge_values().len();
        // Every pair among the edge values, and each random value with its neighbour and
        // with every edge value.
        let mut pairs = Vec::new();
        for (i, a) in values.iter().enumerate() {
            let partners = if i < edges {
                &values[..]
            } else {
                &values[..edges]
            };
            for b in partners {
                pairs.push((*a, *b));
            }
            pairs.push((*a, values[(i + 1) % values.len()]));
        }
        for (a, b) in pairs {
            let (x, y) = (ours(&a), ours(&b));
            let (rx, ry) = (reference(&a), reference(&b));
            assert_eq!(
                x.mul(&y).to_bytes(),
                bytes_of(&(rx * ry)),
                "{a:02x?} * {b:02x?}"
            );
            assert_eq!(
                x.add(&y).to_bytes(),
                bytes_of(&(rx + ry)),
                "{a:02x?} + {b:02x?}"
            );
            assert_eq!(
                x.sub(&y).to_bytes(),
                bytes_of(&(rx - ry)),
                "{a:02x?} - {b:02x?}"
            );
            assert_eq!(x == y, a == b);
        }
    }

    #[test]
    fn unary_operations_match_the_reference() {
        let half = Reference::ONE.double().invert().unwrap();
        for a in inputs() {
            let (x, rx) = (ours(&a), reference(&a));
            assert_eq!(x.square().to_bytes(), bytes_of(&rx.square()), "{a:02x?}²");
            assert_eq!(x.square(), x.mul(&x));
            assert_eq!(x.double().to_bytes(), bytes_of(&rx.double()), "2·{a:02x?}");
            assert_eq!(x.neg().to_bytes(), bytes_of(&-rx), "-{a:02x?}");
            assert_eq!(x.halve().to_bytes(), bytes_of(&(rx * half)), "{a:02x?}/2");
            assert_eq!(x.is_zero(), bool::from(rx.is_zero()));
            let expected = Option::<Reference>::from(rx.invert()).unwrap_or(Reference::ZERO);
            assert_eq!(x.invert().to_bytes(), bytes_of(&expected), "1/{a:02x?}");
            if !x.is_zero() {
                assert_eq!(x.invert().mul(&x), FieldElement::ONE);
            }
        }
    }

    #[test]
    fn long_chains_match_the_reference() {
        // Results fed back as inputs reach values the lists above do not.
        let (mut x, mut rx) = (ours(&p_minus(1)), reference(&p_minus(1)));
        let (y, ry) = (ours(&p_minus(3)), reference(&p_minus(3)));
        for round in 0..2000 {
            (x, rx) = match round % 4 {
                0 => (x.mul(&y).add(&x), rx * ry + rx),
                1 => (x.square().sub(&y), rx.square() - ry),
                2 => (x.double().neg(), -rx.double()),
                _ => (x.sub(&x.mul(&x)), rx - rx * rx),
            };
            assert_eq!(x.to_bytes(), bytes_of(&rx), "round {round}");
        }
    }

    /// Limbs of a 32-byte big-endian integer, as they are (no conversion to Montgomery form).
    fn limbs(bytes: &[u8; 32]) -> [u64; 4] {
        let mut out = [0u64; 4];
        for (limb, chunk) in out.iter_mut().zip(bytes.rchunks_exact(8)) {
            *limb = u64::from_be_bytes(chunk.try_into().expect("8 bytes"));
        }
        out
    }

    /// Whether `result` is a·b·2^-256 mod p, in plain big-integer arithmetic: `result` < p and
    /// result·2^256 ≡ a·b (mod p), both sides 512-bit values reduced by long division.
    fn is_montgomery_product(a: &[u64; 4], b: &[u64; 4], result: &[u64; 4]) -> bool {
        use crypto_bigint::{NonZero, U256, U512};
        let p = NonZero::<U256>::new_unwrap(U256::from_words(P));
        let (low, high) = U256::from_words(*a).widening_mul(&U256::from_words(*b));
        let product: U512 = low.concat_mixed(&high);
        let shifted: U512 = U256::ZERO.concat_mixed(&U256::from_words(*result));
        U256::from_words(*result) < *p.as_ref() && product.rem(&p) == shifted.rem(&p)
    }

    /// Checks a Montgomery multiplication and squaring on raw limbs (any value below p, not
    /// only the Montgomery forms other tests reach) against two references computing
    /// a·b·2^-256 mod p, RustCrypto's `sm2` field (fiat-crypto, Montgomery) and plain
    /// big-integer arithmetic (`crypto-bigint`): every pair of edge values, each edge value
    /// with 1,000 seeded random values, and 100,000 seeded random pairs.
    fn check_raw_limbs(
        mul: impl Fn(&[u64; 4], &[u64; 4]) -> [u64; 4],
        square: impl Fn(&[u64; 4]) -> [u64; 4],
    ) {
        let r_inverse = reference(&be(R)).invert().unwrap();
        let mut edges = edge_values();
        edges.extend([be([0, 0, 0, 1 << 63]), be([u64::MAX, 0, 0, 0])]);
        let random = random_values(200_000);
        let mut pairs: Vec<(&[u8; 32], &[u8; 32])> = Vec::new();
        for a in &edges {
            pairs.extend(edges.iter().map(|b| (a, b)));
            pairs.extend(random[..1000].iter().map(|b| (a, b)));
        }
        pairs.extend(random.chunks_exact(2).map(|pair| (&pair[0], &pair[1])));
        for (a, b) in pairs {
            let (ra, rb) = (reference(a), reference(b));
            let (x, y) = (limbs(a), limbs(b));
            let product = mul(&x, &y);
            assert_eq!(
                be(product),
                bytes_of(&(ra * rb * r_inverse)),
                "{a:02x?} * {b:02x?}"
            );
            assert!(
                is_montgomery_product(&x, &y, &product),
                "{a:02x?} * {b:02x?}"
            );
            if a == b {
                assert_eq!(square(&x), product, "{a:02x?}²");
            }
        }
        for a in edges.iter().chain(&random[..50_000]) {
            let ra = reference(a);
            let expected = bytes_of(&(ra.square() * r_inverse));
            let (x, result) = (limbs(a), square(&limbs(a)));
            assert_eq!(be(result), expected, "{a:02x?}²");
            assert!(is_montgomery_product(&x, &x, &result), "{a:02x?}²");
        }
    }

    #[test]
    fn portable_multiplication_matches_the_reference_on_raw_limbs() {
        check_raw_limbs(
            |a, b| FieldElement(*a).mul_portable(&FieldElement(*b)).0,
            |a| FieldElement(*a).square_portable().0,
        );
    }

    /// The assembly (BMI2 and ADX) against the reference and against the portable code,
    /// whichever path `mul` and `square` dispatch to on this CPU.
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    #[test]
    fn assembly_multiplication_matches_the_reference_and_the_portable_code() {
        let Some(token) = x86::AdxToken::detect() else {
            eprintln!("skipped: this CPU lacks BMI2 or ADX");
            return;
        };
        check_raw_limbs(|a, b| x86::mul(token, a, b), |a| x86::square(token, a));
        let values = random_values(100_000);
        for pair in values.chunks_exact(2) {
            let (x, y) = (FieldElement(limbs(&pair[0])), FieldElement(limbs(&pair[1])));
            assert_eq!(x86::mul(token, &x.0, &y.0), x.mul_portable(&y).0);
            assert_eq!(x86::square(token, &x.0), x.square_portable().0);
        }
    }
}
