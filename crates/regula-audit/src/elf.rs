//! Reading one ELF file: header, program headers, dynamic section, symbols and the sections
//! whose bytes are searched for strings.

use object::read::elf::{Dyn, ElfFile, FileHeader, ProgramHeader};
use object::{Endianness, FileKind, Object, ObjectSection, ObjectSymbol, SectionKind, elf};

/// Everything read from one ELF file.
pub(crate) struct ElfFacts {
    pub(crate) format: String,
    pub(crate) kind: &'static str,
    pub(crate) class64: bool,
    pub(crate) machine: u16,
    pub(crate) interpreter: Option<String>,
    pub(crate) needed: Vec<String>,
    pub(crate) rpath: Vec<String>,
    pub(crate) runpath: Vec<String>,
    pub(crate) has_symtab: bool,
    pub(crate) has_sections: bool,
    pub(crate) symbols: Vec<String>,
    /// Read-only and data sections (or the whole file when it has no section headers).
    pub(crate) data_regions: Vec<(usize, usize)>,
    pub(crate) go_buildinfo: Option<(usize, usize)>,
}

pub(crate) fn read_elf(data: &[u8]) -> Result<ElfFacts, String> {
    match FileKind::parse(data) {
        Ok(FileKind::Elf32) => read_elf_as::<elf::FileHeader32<Endianness>>(data, false),
        Ok(FileKind::Elf64) => read_elf_as::<elf::FileHeader64<Endianness>>(data, true),
        Ok(other) => Err(format!(
            "not an ELF file ({other:?}); regula audit reads ELF executables and shared libraries"
        )),
        Err(_) => Err(
            "not an ELF file (no ELF header); regula audit reads ELF executables and shared libraries"
                .to_string(),
        ),
    }
}

fn read_elf_as<Elf: FileHeader<Endian = Endianness>>(
    data: &[u8],
    class64: bool,
) -> Result<ElfFacts, String> {
    let file = ElfFile::<Elf>::parse(data).map_err(|e| format!("malformed ELF file: {e}"))?;
    let endian = file.endian();
    let header = file.elf_header();
    let machine = header.e_machine(endian);
    let mut interpreter = None;
    let mut has_dynamic_segment = false;
    for segment in file.elf_program_headers() {
        match segment.p_type(endian) {
            elf::PT_INTERP => {
                if let Ok(bytes) = segment.data(endian, data) {
                    let bytes = bytes.split(|&b| b == 0).next().unwrap_or(bytes);
                    interpreter = Some(String::from_utf8_lossy(bytes).into_owned());
                }
            }
            elf::PT_DYNAMIC => has_dynamic_segment = true,
            _ => {}
        }
    }
    let mut needed = Vec::new();
    let mut rpath = Vec::new();
    let mut runpath = Vec::new();
    let sections = file.elf_section_table();
    if let Ok(Some((entries, link))) = sections.dynamic(endian, data)
        && let Ok(strings) = sections.strings(endian, data, link)
    {
        for entry in entries {
            let Some(tag) = entry.tag32(endian) else {
                continue;
            };
            let target = match tag {
                elf::DT_NEEDED => &mut needed,
                elf::DT_RPATH => &mut rpath,
                elf::DT_RUNPATH => &mut runpath,
                _ => continue,
            };
            if let Ok(value) = entry.string(endian, strings) {
                target.push(String::from_utf8_lossy(value).into_owned());
            }
        }
    }
    let e_type = header.e_type(endian);
    let kind = match e_type {
        elf::ET_EXEC => "executable",
        elf::ET_DYN if interpreter.is_some() => "pie-executable",
        elf::ET_DYN => "shared-library",
        elf::ET_REL => "relocatable object",
        elf::ET_CORE => "core dump",
        _ => "ELF file",
    };
    let _ = has_dynamic_segment;
    let has_symtab = file.symbol_table().is_some();
    let mut symbols: Vec<String> = Vec::new();
    // Defined symbols only: an import names what another file provides.
    for symbol in file.symbols().chain(file.dynamic_symbols()) {
        if symbol.is_undefined() {
            continue;
        }
        if let Ok(name) = symbol.name()
            && !name.is_empty()
        {
            symbols.push(name.to_string());
        }
    }
    let mut data_regions = Vec::new();
    let mut go_buildinfo = None;
    let mut section_count = 0;
    for section in file.sections() {
        section_count += 1;
        let Some((offset, size)) = section.file_range() else {
            continue;
        };
        let (offset, size) = (offset as usize, size as usize);
        if offset.checked_add(size).is_none_or(|end| end > data.len()) {
            continue;
        }
        if section.name() == Ok(".go.buildinfo") {
            go_buildinfo = Some((offset, size));
        }
        if matches!(
            section.kind(),
            SectionKind::Data
                | SectionKind::ReadOnlyData
                | SectionKind::ReadOnlyDataWithRel
                | SectionKind::ReadOnlyString
        ) {
            data_regions.push((offset, size));
        }
    }
    if section_count == 0 {
        data_regions.push((0, data.len()));
    }
    Ok(ElfFacts {
        format: format!(
            "ELF{} {}",
            if class64 { 64 } else { 32 },
            machine_name(machine)
        ),
        kind,
        class64,
        machine,
        interpreter,
        needed,
        rpath,
        runpath,
        has_symtab,
        has_sections: section_count > 0,
        symbols,
        data_regions,
        go_buildinfo,
    })
}

fn machine_name(machine: u16) -> String {
    match machine {
        elf::EM_X86_64 => "x86-64".into(),
        elf::EM_386 => "i386".into(),
        elf::EM_AARCH64 => "aarch64".into(),
        elf::EM_ARM => "arm".into(),
        elf::EM_RISCV => "riscv".into(),
        elf::EM_PPC64 => "ppc64".into(),
        elf::EM_S390 => "s390".into(),
        other => format!("machine {other}"),
    }
}

#[cfg(test)]
impl ElfFacts {
    /// Facts of a 64-bit x86-64 file with these symbols and no dynamic section, whose data is
    /// `data` as one region.
    pub(crate) fn for_test(data: &[u8], symbols: &[&str], has_symtab: bool) -> ElfFacts {
        ElfFacts {
            format: "ELF64 x86-64".into(),
            kind: "executable",
            class64: true,
            machine: elf::EM_X86_64,
            interpreter: None,
            needed: Vec::new(),
            rpath: Vec::new(),
            runpath: Vec::new(),
            has_symtab,
            has_sections: true,
            symbols: symbols.iter().map(|s| s.to_string()).collect(),
            data_regions: vec![(0, data.len())],
            go_buildinfo: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_elf_is_refused_with_the_reason() {
        let error = read_elf(b"#!/bin/sh\necho hello\n").err().expect("not ELF");
        assert_eq!(
            error,
            "not an ELF file (no ELF header); regula audit reads ELF executables and shared libraries"
        );
        let error = read_elf(&[]).err().expect("empty");
        assert!(error.starts_with("not an ELF file"), "{error}");
    }

    #[test]
    fn a_truncated_elf_file_is_an_error_not_a_panic() {
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        for len in [4, 16, 52, 64, 100, 4096] {
            let error = read_elf(&exe[..len]).err().expect("truncated");
            assert!(
                error.starts_with("malformed ELF file: ") || error.starts_with("not an ELF file"),
                "{len} bytes: {error}"
            );
        }
    }

    /// The test binary itself: an unstripped executable of the host's class and machine.
    #[test]
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    fn this_test_binary_reads_as_an_unstripped_x86_64_elf() {
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let facts = read_elf(&exe).expect("the test binary is ELF");
        assert_eq!(facts.format, "ELF64 x86-64");
        assert!(facts.class64);
        assert_eq!(facts.machine, elf::EM_X86_64);
        assert!(facts.has_symtab && facts.has_sections);
        assert!(
            facts
                .symbols
                .iter()
                .any(|s| s.contains("this_test_binary_reads_as_an_unstripped_x86_64_elf")),
            "this test's own function is among the defined symbols"
        );
        assert!(facts.needed.iter().any(|n| n.starts_with("libc.so")));
        assert!(!facts.data_regions.is_empty());
    }

    #[test]
    fn machine_names() {
        assert_eq!(machine_name(elf::EM_X86_64), "x86-64");
        assert_eq!(machine_name(elf::EM_AARCH64), "aarch64");
        assert_eq!(machine_name(elf::EM_386), "i386");
        assert_eq!(machine_name(9999), "machine 9999");
    }
}
