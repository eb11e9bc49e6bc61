//! The SM3 compression function (GB/T 32905-2016, 5.3) in x86-64 assembly, for CPUs with
//! BMI2 and AVX-512VL: the rounds on general registers with `rorx`, the message expansion on
//! XMM registers with `vprold`/`vpternlogd`, interleaved.
//!
//! Why assembly: the rounds are one dependency chain whose longest cycles are six 1-cycle
//! operations a round (see `rounds.rs`: GG is computed from the parts of P0), and on a busy
//! core the order in which ready operations issue decides how close a round gets to those six
//! cycles. Compiled code leaves that order to the compiler and spills between blocks; here
//! the order is fixed. On AMD Zen 5 this runs 8 KiB at about 6.3 cycles a round against 6.7
//! for the compiled rounds (`rounds.rs`, still used by the SSSE3 backend).
//!
//! * The order of the instructions in a round was chosen by measurement among the orders that
//!   keep its data flow; the two-operand forms, register names and results are as in
//!   `rounds.rs`: r12d holds the last TT2 (then GG), r13d the rotation part of P0, r14d
//!   A <<< 12 (then SS2), r15d SS1.
//! * T_j <<< j is an assembler expression in the displacement of a `lea`.
//! * Group g (rounds 4g..4g+3) stores W'_(4g+4..4g+7) = W ^ W(+4), a group ahead of its use,
//!   and after two rounds computes W_(4g+16..4g+19), three groups ahead (the step of
//!   `x86_64.rs`: P1 is linear, so the fourth word is corrected afterwards).
//! * The state stays in registers from block to block; V(i+1) = ABCDEFGH ^ V(i) is written
//!   back after every block. Message words and state are cleared from the scratch registers
//!   before returning.

/// The expanded message as the assembly reads it: W_j at byte 4j, W'_j at byte 272 + 4j.
#[repr(C)]
pub(super) struct Expanded {
    w: [u32; 68],
    w_prime: [u32; 64],
}

impl Expanded {
    pub(super) fn new() -> Expanded {
        Expanded {
            w: [0; 68],
            w_prime: [0; 64],
        }
    }
}

impl Drop for Expanded {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.w);
        zeroize::Zeroize::zeroize(&mut self.w_prime);
    }
}

/// Compresses `count` blocks from `blocks` into `state`, using `expanded` as scratch.
///
/// # Safety
/// The CPU must support BMI2, AVX-512F and AVX-512VL; `state` must be 8 writable words,
/// `expanded` writable and `blocks` `count` ≥ 1 readable blocks.
#[unsafe(naked)]
pub(super) unsafe extern "sysv64" fn compress(
    state: *mut [u32; 8],
    expanded: *mut Expanded,
    blocks: *const [u8; 64],
    count: usize,
) {
    core::arch::naked_asm!(
        // One round on the registers named; `ff` is 0 for rounds 0-15 (FF and GG the parity)
        // and 1 for rounds 16-63 (majority, selection).
        ".macro SM3_ROUND ff, A, B, C, D, E, F, G, H, j",
        "add \\H, dword ptr [rsi + 4 * \\j]",
        "add \\D, dword ptr [rsi + 272 + 4 * \\j]",
        "mov edi, \\F",
        "mov ebp, \\B",
        "rorx r14d, \\A, 20",
        "xor edi, \\G",
        "xor ebp, \\C",
        ".if \\j < 16",
        "lea r15d, [r14 + (((((0x79cc4519 << (\\j % 32)) | (0x79cc4519 >> (32 - (\\j % 32)))) & 0xffffffff) ^ 0x80000000) - 0x80000000)]",
        ".else",
        "lea r15d, [r14 + (((((0x7a879d8a << (\\j % 32)) | (0x7a879d8a >> (32 - (\\j % 32)))) & 0xffffffff) ^ 0x80000000) - 0x80000000)]",
        ".endif",
        ".if \\ff",
        "and r12d, edi",
        ".else",
        "xor r12d, edi",
        ".endif",
        ".if \\ff",
        "and edi, r13d",
        ".endif",
        "rorx \\F, \\F, 13",
        "add r15d, \\E",
        ".if \\ff",
        "and ebp, \\A",
        ".else",
        "xor ebp, \\A",
        ".endif",
        ".if \\ff",
        "xor r12d, \\G",
        ".else",
        "xor r12d, r13d",
        ".endif",
        "rorx r15d, r15d, 25",
        "xor r14d, r15d",
        ".if \\ff",
        "xor r12d, edi",
        ".endif",
        ".if \\ff",
        "mov edi, \\B",
        ".endif",
        "rorx \\B, \\B, 23",
        "add \\H, r12d",
        "add \\H, r15d",
        ".if \\ff",
        "and edi, \\C",
        ".endif",
        "rorx r13d, \\H, 23",
        ".if \\ff",
        "xor ebp, edi",
        ".endif",
        "mov r12d, \\H",
        "add \\D, ebp",
        "rorx edi, \\H, 15",
        "add \\D, r14d",
        "xor r13d, edi",
        "xor \\H, r13d",
        ".endm",
        // Group j/4, on the window X0..X3 = W_j..W_(j+15).
        ".macro SM3_GROUP ff, j, X0, X1, X2, X3",
        ".if \\j < 60",
        "vpxor xmm4, \\X1, \\X2",
        "vmovdqu xmmword ptr [rsi + 272 + 4 * (\\j + 4)], xmm4",
        ".endif",
        "SM3_ROUND \\ff, eax, ebx, ecx, edx, r8d, r9d, r10d, r11d, \\j",
        "SM3_ROUND \\ff, edx, eax, ebx, ecx, r11d, r8d, r9d, r10d, (\\j + 1)",
        ".if \\j <= 48",
        // W_(j+16..j+19) into X0: W9, W13, W6 and W3 are the words 9, 13, 6 and 3 back.
        "vpalignr xmm4, \\X2, \\X1, 12",
        "vpalignr xmm5, \\X1, \\X0, 12",
        "vpalignr xmm6, \\X3, \\X2, 8",
        "vpsrldq xmm7, \\X3, 4",
        "vprold xmm7, xmm7, 15",
        "vpternlogd xmm7, \\X0, xmm4, 0x96",
        "vprold xmm4, xmm7, 15",
        "vprold xmm8, xmm7, 23",
        "vpternlogd xmm7, xmm4, xmm8, 0x96",
        "vprold xmm5, xmm5, 7",
        "vpternlogd xmm7, xmm5, xmm6, 0x96",
        // The fourth word missed P1(W_(j+16) <<< 15): add it.
        "vpslldq xmm4, xmm7, 12",
        "vprold xmm4, xmm4, 15",
        "vprold xmm5, xmm4, 15",
        "vprold xmm6, xmm4, 23",
        "vpternlogd xmm5, xmm6, xmm4, 0x96",
        "vpxor \\X0, xmm7, xmm5",
        "vmovdqu xmmword ptr [rsi + 64 + 4 * \\j], \\X0",
        ".endif",
        "SM3_ROUND \\ff, ecx, edx, eax, ebx, r10d, r11d, r8d, r9d, (\\j + 2)",
        "SM3_ROUND \\ff, ebx, ecx, edx, eax, r9d, r10d, r11d, r8d, (\\j + 3)",
        ".endm",
        "push rbx",
        "push rbp",
        "push r12",
        "push r13",
        "push r14",
        "push r15",
        // [rsp + 16]: state, [rsp + 8]: next block, [rsp]: blocks left.
        "push rdi",
        "push rdx",
        "push rcx",
        // The pshufb control that byte-swaps each 32-bit word (SM3 words are big-endian).
        "mov rax, 0x0405060700010203",
        "vmovq xmm15, rax",
        "mov rax, 0x0c0d0e0f08090a0b",
        "vpinsrq xmm15, xmm15, rax, 1",
        "mov eax, dword ptr [rdi]",
        "mov ebx, dword ptr [rdi + 4]",
        "mov ecx, dword ptr [rdi + 8]",
        "mov edx, dword ptr [rdi + 12]",
        "mov r8d, dword ptr [rdi + 16]",
        "mov r9d, dword ptr [rdi + 20]",
        "mov r10d, dword ptr [rdi + 24]",
        "mov r11d, dword ptr [rdi + 28]",
        "2:",
        "mov rdi, qword ptr [rsp + 8]",
        "vmovdqu xmm0, xmmword ptr [rdi]",
        "vpshufb xmm0, xmm0, xmm15",
        "vmovdqu xmm1, xmmword ptr [rdi + 16]",
        "vpshufb xmm1, xmm1, xmm15",
        "vmovdqu xmm2, xmmword ptr [rdi + 32]",
        "vpshufb xmm2, xmm2, xmm15",
        "vmovdqu xmm3, xmmword ptr [rdi + 48]",
        "vpshufb xmm3, xmm3, xmm15",
        "vmovdqu xmmword ptr [rsi], xmm0",
        "vmovdqu xmmword ptr [rsi + 16], xmm1",
        "vmovdqu xmmword ptr [rsi + 32], xmm2",
        "vmovdqu xmmword ptr [rsi + 48], xmm3",
        "vpxor xmm4, xmm0, xmm1",
        "vmovdqu xmmword ptr [rsi + 272], xmm4",
        // E as the parts the rounds read: TT2 = E, rotation part 0.
        "mov r12d, r8d",
        "xor r13d, r13d",
        "SM3_GROUP 0, 0, xmm0, xmm1, xmm2, xmm3",
        "SM3_GROUP 0, 4, xmm1, xmm2, xmm3, xmm0",
        "SM3_GROUP 0, 8, xmm2, xmm3, xmm0, xmm1",
        "SM3_GROUP 0, 12, xmm3, xmm0, xmm1, xmm2",
        "SM3_GROUP 1, 16, xmm0, xmm1, xmm2, xmm3",
        "SM3_GROUP 1, 20, xmm1, xmm2, xmm3, xmm0",
        "SM3_GROUP 1, 24, xmm2, xmm3, xmm0, xmm1",
        "SM3_GROUP 1, 28, xmm3, xmm0, xmm1, xmm2",
        "SM3_GROUP 1, 32, xmm0, xmm1, xmm2, xmm3",
        "SM3_GROUP 1, 36, xmm1, xmm2, xmm3, xmm0",
        "SM3_GROUP 1, 40, xmm2, xmm3, xmm0, xmm1",
        "SM3_GROUP 1, 44, xmm3, xmm0, xmm1, xmm2",
        "SM3_GROUP 1, 48, xmm0, xmm1, xmm2, xmm3",
        "SM3_GROUP 1, 52, xmm1, xmm2, xmm3, xmm0",
        "SM3_GROUP 1, 56, xmm2, xmm3, xmm0, xmm1",
        "SM3_GROUP 1, 60, xmm3, xmm0, xmm1, xmm2",
        // V(i+1) = ABCDEFGH ^ V(i), kept in the registers for the next block.
        "mov rdi, qword ptr [rsp + 16]",
        "xor eax, dword ptr [rdi]",
        "mov dword ptr [rdi], eax",
        "xor ebx, dword ptr [rdi + 4]",
        "mov dword ptr [rdi + 4], ebx",
        "xor ecx, dword ptr [rdi + 8]",
        "mov dword ptr [rdi + 8], ecx",
        "xor edx, dword ptr [rdi + 12]",
        "mov dword ptr [rdi + 12], edx",
        "xor r8d, dword ptr [rdi + 16]",
        "mov dword ptr [rdi + 16], r8d",
        "xor r9d, dword ptr [rdi + 20]",
        "mov dword ptr [rdi + 20], r9d",
        "xor r10d, dword ptr [rdi + 24]",
        "mov dword ptr [rdi + 24], r10d",
        "xor r11d, dword ptr [rdi + 28]",
        "mov dword ptr [rdi + 28], r11d",
        "add qword ptr [rsp + 8], 64",
        "dec qword ptr [rsp]",
        "jnz 2b",
        "add rsp, 24",
        // Clear what the caller does not restore: state words and message words.
        "xor eax, eax",
        "xor ecx, ecx",
        "xor edx, edx",
        "xor esi, esi",
        "xor edi, edi",
        "xor r8d, r8d",
        "xor r9d, r9d",
        "xor r10d, r10d",
        "xor r11d, r11d",
        "vpxor xmm0, xmm0, xmm0",
        "vpxor xmm1, xmm1, xmm1",
        "vpxor xmm2, xmm2, xmm2",
        "vpxor xmm3, xmm3, xmm3",
        "vpxor xmm4, xmm4, xmm4",
        "vpxor xmm5, xmm5, xmm5",
        "vpxor xmm6, xmm6, xmm6",
        "vpxor xmm7, xmm7, xmm7",
        "vpxor xmm8, xmm8, xmm8",
        "pop r15",
        "pop r14",
        "pop r13",
        "pop r12",
        "pop rbp",
        "pop rbx",
        "ret",
        ".purgem SM3_GROUP",
        ".purgem SM3_ROUND",
    );
}
