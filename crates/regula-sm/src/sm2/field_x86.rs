//! Montgomery multiplication and squaring modulo the SM2 prime with BMI2 (`mulx`) and ADX
//! (`adcx`/`adox`), for x86-64 processors that have both (Intel Broadwell and AMD Zen on).
//!
//! The arithmetic is that of the portable code in `field.rs`: a full 512-bit product, then
//! four multiplication-free word-by-word Montgomery steps on the low half, then the high half
//! added and one conditional subtraction of p. What changes is how the product is formed:
//! `mulx` takes its multiplier in `rdx` implicitly, writes both halves to any two registers and
//! leaves the flags alone, and `adcx`/`adox` propagate two independent carries (CF and OF), so
//! the high and low halves of a row of partial products are added in two interleaved chains
//! instead of one serial `adc` chain waiting on `mul`'s fixed `rdx:rax` output.
//!
//! Everything is straight-line code: no branch and no memory index depends on the values, and
//! the final subtraction is selected with `cmov`.

/// Proof that the CPU supports BMI2 and ADX; only [`AdxToken::detect`] makes one.
#[derive(Clone, Copy)]
pub(super) struct AdxToken(());

impl AdxToken {
    /// Checks the CPU for the features this backend uses.
    pub(super) fn detect() -> Option<Self> {
        let supported = std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("adx");
        supported.then_some(AdxToken(()))
    }

    /// [`AdxToken::detect`], asked once: later calls are one relaxed load of a cached answer,
    /// cheap enough for every field multiplication.
    #[inline(always)]
    pub(super) fn cached() -> Option<Self> {
        use core::sync::atomic::{AtomicU8, Ordering};
        if cfg!(all(target_feature = "bmi2", target_feature = "adx")) {
            // Built for processors that all have them (e.g. `-C target-cpu=native` here).
            return Some(AdxToken(()));
        }
        /// 0: not asked yet; 1: absent; 2: present.
        static STATE: AtomicU8 = AtomicU8::new(0);
        match STATE.load(Ordering::Relaxed) {
            2 => Some(AdxToken(())),
            1 => None,
            _ => {
                let token = AdxToken::detect();
                STATE.store(if token.is_some() { 2 } else { 1 }, Ordering::Relaxed);
                token
            }
        }
    }
}

// The Montgomery reduction shared by `mul` and `square`. On entry the product is
// t = [t0, t1, t2, t3, t4, t5, t6, t7] (little-endian limbs in the named registers); `{lo}`,
// `{hi}` and rdx are scratch. On exit t·2^-256 mod p, fully reduced, is in [t0, t1, t2, t3].
//
// Step (repeated four times, the registers rotating): with w = [w0, w1, w2, w3] and m = w0,
//   (w + m·p) / 2^64 = [w1, w2, w3, 0] + m·(2^192 - 2^160 - 2^32 + 1)      (p ≡ -1 mod 2^64)
//                    = [w1, w2, w3, 0] + [m, 0, 0, m] - [m << 32, m >> 32, m << 32, m >> 32]
// since m·2^32 = (m << 32) + (m >> 32)·2^64 and m·2^160 is the same shifted by two limbs.
// The true result is below 2^192 + p < 2^256, so computing it modulo 2^256 (an add chain,
// then a subtract chain, both dropping the carry out of the top limb) gives it exactly. The
// limb m's register is free after the step and takes the new top limb, so the window
// [w0..w3] rotates by one register per step and is back in [t0..t3] after four.
//
// After four steps w = (low + M·p) / 2^256 ≤ p for some M < 2^256, and high < p for reduced
// inputs, so s = w + high < 2p: s - p is computed (as s + 2^256 - p, the borrow telling
// whether s < p) and kept unless it borrowed without the sum having carried out.
macro_rules! reduce {
    () => {
        concat!(
            // Step 1: m = t0, window [t1, t2, t3, t0].
            "mov {lo}, {t0}\n",
            "shl {lo}, 32\n",
            "mov {hi}, {t0}\n",
            "shr {hi}, 32\n",
            "add {t1}, {t0}\n",
            "adc {t2}, 0\n",
            "adc {t3}, 0\n",
            "adc {t0}, 0\n",
            "sub {t1}, {lo}\n",
            "sbb {t2}, {hi}\n",
            "sbb {t3}, {lo}\n",
            "sbb {t0}, {hi}\n",
            // Step 2: m = t1, window [t2, t3, t0, t1].
            "mov {lo}, {t1}\n",
            "shl {lo}, 32\n",
            "mov {hi}, {t1}\n",
            "shr {hi}, 32\n",
            "add {t2}, {t1}\n",
            "adc {t3}, 0\n",
            "adc {t0}, 0\n",
            "adc {t1}, 0\n",
            "sub {t2}, {lo}\n",
            "sbb {t3}, {hi}\n",
            "sbb {t0}, {lo}\n",
            "sbb {t1}, {hi}\n",
            // Step 3: m = t2, window [t3, t0, t1, t2].
            "mov {lo}, {t2}\n",
            "shl {lo}, 32\n",
            "mov {hi}, {t2}\n",
            "shr {hi}, 32\n",
            "add {t3}, {t2}\n",
            "adc {t0}, 0\n",
            "adc {t1}, 0\n",
            "adc {t2}, 0\n",
            "sub {t3}, {lo}\n",
            "sbb {t0}, {hi}\n",
            "sbb {t1}, {lo}\n",
            "sbb {t2}, {hi}\n",
            // Step 4: m = t3, window [t0, t1, t2, t3].
            "mov {lo}, {t3}\n",
            "shl {lo}, 32\n",
            "mov {hi}, {t3}\n",
            "shr {hi}, 32\n",
            "add {t0}, {t3}\n",
            "adc {t1}, 0\n",
            "adc {t2}, 0\n",
            "adc {t3}, 0\n",
            "sub {t0}, {lo}\n",
            "sbb {t1}, {hi}\n",
            "sbb {t2}, {lo}\n",
            "sbb {t3}, {hi}\n",
            // s = w + high, its carry out in rdx (0 or 1).
            "xor edx, edx\n",
            "add {t0}, {t4}\n",
            "adc {t1}, {t5}\n",
            "adc {t2}, {t6}\n",
            "adc {t3}, {t7}\n",
            "adc rdx, 0\n",
            // [t4..t7] = s - p, p = [-1, 0xffffffff00000000, -1, 0xfffffffeffffffff]; the
            // immediate -1 is sign-extended to all ones.
            "mov {lo}, 0xffffffff00000000\n",
            "mov {hi}, 0xfffffffeffffffff\n",
            "mov {t4}, {t0}\n",
            "mov {t5}, {t1}\n",
            "mov {t6}, {t2}\n",
            "mov {t7}, {t3}\n",
            "sub {t4}, -1\n",
            "sbb {t5}, {lo}\n",
            "sbb {t6}, -1\n",
            "sbb {t7}, {hi}\n",
            // carry - borrow borrows (CF = 1) exactly when s < p (no carry out, a borrow):
            // then s stays, else s - p replaces it. (A carry out means s ≥ 2^256 > p; the
            // subtraction then borrowed too, and its low 256 bits are s - p.)
            "sbb rdx, 0\n",
            "cmovnc {t0}, {t4}\n",
            "cmovnc {t1}, {t5}\n",
            "cmovnc {t2}, {t6}\n",
            "cmovnc {t3}, {t7}\n",
        )
    };
}

/// `a·b·2^-256 mod p` for `a, b < p`, fully reduced.
#[inline(always)]
pub(super) fn mul(_token: AdxToken, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (t0, t1, t2, t3): (u64, u64, u64, u64);
    // SAFETY: an `AdxToken` exists only after `AdxToken::detect` saw BMI2 (`mulx`) and ADX
    // (`adcx`, `adox`). The assembly reads the 32 bytes behind `b` and nothing else, writes
    // only the registers declared below, and does not touch the stack.
    unsafe {
        core::arch::asm!(
            // Register plan: a's limbs arrive in registers (a0 in rdx, a1, a2, a3 in the
            // registers that later hold t5, t6, t7: each a_i moves to rdx at the start of
            // its row, before that row first writes the limb), so that an operand just
            // computed does not go through memory; {b} points at the other operand, read by
            // mulx's memory form. The product accumulates in t0..t7; {lo} and {hi} take
            // each mulx's halves. 12 registers; `reduce!` then uses rdx too.
            //
            // Row 0: [t0..t4] = a0·b, one carry chain (mulx leaves the flags alone).
            "mulx {t1}, {t0}, qword ptr [{b}]",
            "mulx {t2}, {lo}, qword ptr [{b} + 8]",
            "add {t1}, {lo}",
            "mulx {t3}, {lo}, qword ptr [{b} + 16]",
            "adc {t2}, {lo}",
            "mulx {t4}, {lo}, qword ptr [{b} + 24]",
            "adc {t3}, {lo}",
            "adc {t4}, 0",
            // Row i (1..3): t += a_i·b·2^(64i). The low half of a_i·b_j goes to t_(i+j) on
            // the OF chain (adox), the high half to t_(i+j+1) on the CF chain (adcx); the
            // last high half lands directly in the new top limb t_(i+4), which then takes
            // both chains' carries. `xor` clears CF and OF; `mov` keeps them, so {hi} is
            // zeroed between chain links. The row total is below 2^(64(i+5)), so the top
            // limb cannot overflow.
            //
            // Row 1.
            "mov rdx, {t5}",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{b}]",
            "adox {t1}, {lo}",
            "adcx {t2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{b} + 8]",
            "adox {t2}, {lo}",
            "adcx {t3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{b} + 16]",
            "adox {t3}, {lo}",
            "adcx {t4}, {hi}",
            "mov {hi:e}, 0",
            "mulx {t5}, {lo}, qword ptr [{b} + 24]",
            "adox {t4}, {lo}",
            "adcx {t5}, {hi}",
            "adox {t5}, {hi}",
            // Row 2.
            "mov rdx, {t6}",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{b}]",
            "adox {t2}, {lo}",
            "adcx {t3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{b} + 8]",
            "adox {t3}, {lo}",
            "adcx {t4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{b} + 16]",
            "adox {t4}, {lo}",
            "adcx {t5}, {hi}",
            "mov {hi:e}, 0",
            "mulx {t6}, {lo}, qword ptr [{b} + 24]",
            "adox {t5}, {lo}",
            "adcx {t6}, {hi}",
            "adox {t6}, {hi}",
            // Row 3.
            "mov rdx, {t7}",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{b}]",
            "adox {t3}, {lo}",
            "adcx {t4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{b} + 8]",
            "adox {t4}, {lo}",
            "adcx {t5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{b} + 16]",
            "adox {t5}, {lo}",
            "adcx {t6}, {hi}",
            "mov {hi:e}, 0",
            "mulx {t7}, {lo}, qword ptr [{b} + 24]",
            "adox {t6}, {lo}",
            "adcx {t7}, {hi}",
            "adox {t7}, {hi}",
            reduce!(),
            b = in(reg) b.as_ptr(),
            t0 = out(reg) t0,
            t1 = out(reg) t1,
            t2 = out(reg) t2,
            t3 = out(reg) t3,
            t4 = out(reg) _,
            t5 = inout(reg) a[1] => _,
            t6 = inout(reg) a[2] => _,
            t7 = inout(reg) a[3] => _,
            lo = out(reg) _,
            hi = out(reg) _,
            inout("rdx") a[0] => _,
            options(pure, readonly, nostack),
        );
    }
    [t0, t1, t2, t3]
}

/// `a²·2^-256 mod p` for `a < p`, fully reduced.
#[inline(always)]
pub(super) fn square(_token: AdxToken, a: &[u64; 4]) -> [u64; 4] {
    let (t0, t1, t2, t3): (u64, u64, u64, u64);
    // SAFETY: as in `mul`: BMI2 and ADX are present (the token); the assembly works on
    // registers only (no memory access), writes only the declared registers, and does not
    // touch the stack.
    unsafe {
        core::arch::asm!(
            // Register plan: a0 arrives in the register of t0 (written last, by a0²), a3 in
            // that of t7 (zeroed only once a3 has moved to rdx for a3²), a1 and a2 in their
            // own; rdx holds the multiplier; t1..t6 collect the cross products a_i·a_j
            // (i < j) at limb i + j, then t0..t7 the square; {lo} and {hi} take mulx halves.
            // 13 registers, every one the compiler lets inline assembly have.
            //
            // Cross products. Row a0: a0·a1, a0·a2, a0·a3 at limbs 1..4.
            "mov rdx, {t0}",
            "mulx {t2}, {t1}, {a1}",
            "mulx {t3}, {lo}, {a2}",
            "add {t2}, {lo}",
            "mulx {t4}, {lo}, {t7}",
            "adc {t3}, {lo}",
            "adc {t4}, 0",
            // Row a1: a1·a2 at limbs 3-4, a1·a3 at limbs 4-5 (mulx leaves the carry of t4
            // pending for the new limb t5). The partial sum is below 2^384: no carry out of
            // t5.
            "mov rdx, {a1}",
            "mulx {hi}, {lo}, {a2}",
            "add {t3}, {lo}",
            "adc {t4}, {hi}",
            "mulx {t5}, {lo}, {t7}",
            "adc {t5}, 0",
            "add {t4}, {lo}",
            "adc {t5}, 0",
            // Row a2: a2·a3 at limbs 5-6. All cross products together are below 2^447.
            "mov rdx, {a2}",
            "mulx {t6}, {lo}, {t7}",
            "add {t5}, {lo}",
            "adc {t6}, 0",
            // Doubling and squares in two chains: limb k of 2·cross is t_k + t_k plus the
            // CF carry (adcx), and the halves of a_i² are added at limbs 2i, 2i+1 on the OF
            // chain (adox). `xor` clears both flags; `mov` keeps them, so t7 is zeroed in
            // the middle; a² < 2^512 so nothing carries out of t7.
            "xor {lo:e}, {lo:e}",
            "mov rdx, {t0}",
            "mulx {hi}, {t0}, rdx",
            "adcx {t1}, {t1}",
            "adox {t1}, {hi}",
            "mov rdx, {a1}",
            "mulx {hi}, {lo}, rdx",
            "adcx {t2}, {t2}",
            "adox {t2}, {lo}",
            "adcx {t3}, {t3}",
            "adox {t3}, {hi}",
            "mov rdx, {a2}",
            "mulx {hi}, {lo}, rdx",
            "adcx {t4}, {t4}",
            "adox {t4}, {lo}",
            "adcx {t5}, {t5}",
            "adox {t5}, {hi}",
            "mov rdx, {t7}",
            "mov {t7:e}, 0",
            "mulx {hi}, {lo}, rdx",
            "adcx {t6}, {t6}",
            "adox {t6}, {lo}",
            "adcx {t7}, {t7}",
            "adox {t7}, {hi}",
            reduce!(),
            a1 = in(reg) a[1],
            a2 = in(reg) a[2],
            t0 = inout(reg) a[0] => t0,
            t1 = out(reg) t1,
            t2 = out(reg) t2,
            t3 = out(reg) t3,
            t4 = out(reg) _,
            t5 = out(reg) _,
            t6 = out(reg) _,
            t7 = inout(reg) a[3] => _,
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(pure, nomem, nostack),
        );
    }
    [t0, t1, t2, t3]
}
