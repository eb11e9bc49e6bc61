//! Checks of the rows themselves.

use super::*;

#[test]
fn rows_are_in_algorithm_order() {
    for (index, entry) in REGISTRY.iter().enumerate() {
        assert_eq!(
            entry.algorithm.index(),
            index,
            "row for {} is out of order",
            entry.name
        );
    }
}

#[test]
fn names_are_unique() {
    let mut names: Vec<_> = REGISTRY.iter().map(|entry| entry.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), REGISTRY.len());
}
