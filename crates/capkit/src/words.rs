//! Counts in messages: "1 example", "2 examples", never "1 examples".

/// `n` and `noun`, plural unless `n` is one (`noun` takes an `s`).
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_singular() {
        assert_eq!(super::count(0, "task"), "0 tasks");
        assert_eq!(super::count(1, "task"), "1 task");
        assert_eq!(super::count(2, "attempt"), "2 attempts");
    }
}
