//! The 64 rounds of the SM3 compression function (GB/T 32905-2016, 5.3.3), scalar, generic
//! over how the message expansion is scheduled.
//!
//! SM3 has no table lookups and no data-dependent branches: only additions, XORs, ANDs and
//! fixed rotations, so this code is constant time as written.

#![deny(unsafe_code)]

/// T_j <<< (j mod 32), the round constants as the compression function uses them
/// (GB/T 32905-2016, 4.2 and 5.3.3): T_j = 79CC4519 for 0 ≤ j ≤ 15, 7A879D8A for 16 ≤ j ≤ 63.
pub(super) const T: [u32; 64] = {
    let mut t = [0u32; 64];
    let mut j = 0;
    while j < 64 {
        let base: u32 = if j < 16 { 0x79cc_4519 } else { 0x7a87_9d8a };
        t[j] = base.rotate_left((j % 32) as u32);
        j += 1;
    }
    t
};

/// The message expansion (GB/T 32905-2016, 5.3.2) as the rounds consume it: W_j for TT2 and
/// W'_j = W_j ^ W_(j+4) for TT1.
///
/// [`rounds`] calls [`Schedule::prepare`] before every group of four rounds, so the expansion
/// is spread through the rounds instead of preceding them: the out-of-order core then runs the
/// two side by side (the rounds are one long dependency chain with idle ports).
pub(super) trait Schedule {
    /// Makes W_j and W'_j available for the four rounds of `group` (j < 4·`group` + 4).
    /// `after` is the newest state word: an implementation may order its work after it.
    fn prepare(&mut self, group: usize, after: u32);
    /// W_j, once prepared.
    fn w(&self, j: usize) -> u32;
    /// W'_j, once prepared.
    fn w_prime(&self, j: usize) -> u32;
}

/// The rotation part of P0(X) = X ^ (X <<< 9) ^ (X <<< 17) (GB/T 32905-2016, 4.4).
#[inline(always)]
fn p0_rotations(x: u32) -> u32 {
    x.rotate_left(9) ^ x.rotate_left(17)
}

/// FF_j for 0 ≤ j ≤ 15: X ^ Y ^ Z (GB/T 32905-2016, 4.3).
#[inline(always)]
fn parity(x: u32, y: u32, z: u32) -> u32 {
    x ^ y ^ z
}

/// FF_j for 16 ≤ j ≤ 63: (X & Y) | (X & Z) | (Y & Z), the majority, written as
/// ((Y ^ Z) & X) ^ (Y & Z): X is the newest word, so only two operations wait for it.
#[inline(always)]
fn majority(x: u32, y: u32, z: u32) -> u32 {
    ((y ^ z) & x) ^ (y & z)
}

/// GG_j for 0 ≤ j ≤ 15, E ^ F ^ G (GB/T 32905-2016, 4.3), from the parts of E = TT2 ^ R
/// (see [`choose_from_parts`]): F ^ G is ready early, so GG is two XORs after R.
#[inline(always)]
fn parity_from_parts(tt2: u32, r: u32, f: u32, g: u32, opaque: &impl Fn(u32) -> u32) -> u32 {
    opaque(tt2 ^ opaque(f ^ g)) ^ r
}

/// GG_j for 16 ≤ j ≤ 63, (E & F) | (!E & G) = ((F ^ G) & E) ^ G, computed from the parts of
/// E = P0(TT2) = TT2 ^ R, R = (TT2 <<< 9) ^ (TT2 <<< 17), without waiting for E.
///
/// AND distributes over XOR, so (F ^ G) & E = ((F ^ G) & TT2) ^ ((F ^ G) & R): the selection
/// starts right after TT2 and ends one operation after R, where from E it would end two
/// operations after E. That takes the longest cycle of the rounds (TT2 → E → GG → TT2 → …)
/// from 7 operations to 6, the length of the other cycles (through SS1, and through A).
/// `opaque` keeps the optimiser from factoring the two ANDs back into one after E.
#[inline(always)]
fn choose_from_parts(tt2: u32, r: u32, f: u32, g: u32, opaque: &impl Fn(u32) -> u32) -> u32 {
    let fg = f ^ g;
    opaque(g ^ (fg & tt2)) ^ opaque(fg & r)
}

/// The 64 rounds of CF (GB/T 32905-2016, 5.3.3) on `state`, with the expanded message, and
/// the final XOR V_(i+1) = ABCDEFGH ^ V_i.
///
/// Registers are renamed instead of moved: after a round the new (A, B, C, D, E, F, G, H) is
/// (TT1, A, B <<< 9, C, P0(TT2), E, F <<< 19, G), so TT1 is written over D, P0(TT2) over H,
/// and the next round reads the variables shifted by one place.
///
/// The rounds are one dependency chain, so the order of the operations matters: E is added
/// last to (A <<< 12) + T_j, TT2 is (GG + (H + W_j)) + SS1, and GG is computed from the
/// parts of the previous P0 instead of from E. `opaque` returns its argument but hides it
/// from the optimiser, which would otherwise reassociate the sums (constants last, E first)
/// and refactor GG; of the orders measured on AMD Zen 5, this one was the fastest (about 6%
/// faster than GG from E).
#[inline(always)]
// The parts of E written by the last round are not read: the state keeps E itself.
#[allow(unused_assignments)]
pub(super) fn rounds(
    state: &mut [u32; 8],
    schedule: &mut impl Schedule,
    opaque: impl Fn(u32) -> u32,
) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    // The constants are read from memory (`black_box` hides the table's contents): loads are
    // free here, and as immediates they let the optimiser reorder the sums around them.
    let t = core::hint::black_box(&T);

    // E as the parts GG reads: the last TT2 and the rotation part of its P0, so that
    // E = tt2_last ^ rotations_last. Before the first round, E itself and 0.
    let mut tt2_last = e;
    let mut rotations_last = 0u32;

    macro_rules! round {
        ($j:expr, $ff:ident, $gg:ident, $a:ident, $b:ident, $c:ident, $d:ident,
         $e:ident, $f:ident, $g:ident, $h:ident) => {{
            let a12 = $a.rotate_left(12);
            let ss1 = opaque(a12.wrapping_add(t[$j]))
                .wrapping_add($e)
                .rotate_left(7);
            let ss2 = ss1 ^ a12;
            let tt1 = opaque($ff($a, $b, $c).wrapping_add($d.wrapping_add(schedule.w_prime($j))))
                .wrapping_add(ss2);
            let gg = $gg(tt2_last, rotations_last, $f, $g, &opaque);
            let tt2 = opaque(gg.wrapping_add($h.wrapping_add(schedule.w($j)))).wrapping_add(ss1);
            $d = tt1;
            $b = $b.rotate_left(9);
            rotations_last = p0_rotations(tt2);
            tt2_last = tt2;
            $h = tt2 ^ rotations_last;
            $f = $f.rotate_left(19);
        }};
    }

    macro_rules! four_rounds {
        ($j:expr, $ff:ident, $gg:ident) => {{
            schedule.prepare($j / 4, a);
            round!($j, $ff, $gg, a, b, c, d, e, f, g, h);
            round!($j + 1, $ff, $gg, d, a, b, c, h, e, f, g);
            round!($j + 2, $ff, $gg, c, d, a, b, g, h, e, f);
            round!($j + 3, $ff, $gg, b, c, d, a, f, g, h, e);
        }};
    }

    four_rounds!(0, parity, parity_from_parts);
    four_rounds!(4, parity, parity_from_parts);
    four_rounds!(8, parity, parity_from_parts);
    four_rounds!(12, parity, parity_from_parts);
    four_rounds!(16, majority, choose_from_parts);
    four_rounds!(20, majority, choose_from_parts);
    four_rounds!(24, majority, choose_from_parts);
    four_rounds!(28, majority, choose_from_parts);
    four_rounds!(32, majority, choose_from_parts);
    four_rounds!(36, majority, choose_from_parts);
    four_rounds!(40, majority, choose_from_parts);
    four_rounds!(44, majority, choose_from_parts);
    four_rounds!(48, majority, choose_from_parts);
    four_rounds!(52, majority, choose_from_parts);
    four_rounds!(56, majority, choose_from_parts);
    four_rounds!(60, majority, choose_from_parts);

    // Word by word through `opaque`: vectorised, this XOR would move A..D through SIMD
    // registers (two-cycle operations on some CPUs) between the last round of one block and
    // the first of the next.
    for (word, new) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *word = opaque(*word ^ new);
    }
}
