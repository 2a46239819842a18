//! Keyword abbreviations as sacctmgr (and much of Slurm's command code)
//! reads them: `xstrncasecmp(full, typed, MAX(strlen(typed), min))`.

/// Whether `typed` names keyword `full`: a prefix of it in any case, at
/// least `min` characters long (or all of `full` when that is shorter).
pub fn abbrev(typed: &str, full: &str, min: usize) -> bool {
    typed.len() >= min.min(full.len())
        && typed.len() <= full.len()
        && full.as_bytes()[..typed.len()].eq_ignore_ascii_case(typed.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::abbrev;

    #[test]
    fn prefixes_of_at_least_the_minimum() {
        assert!(abbrev("acc", "Account", 3) && abbrev("ACCOUNT", "Account", 3));
        assert!(!abbrev("ac", "Account", 3) && !abbrev("accounts", "Account", 3));
        // a keyword shorter than the minimum is named by all of it
        assert!(abbrev("qos", "qos", 5) && !abbrev("qo", "qos", 5));
        // multi-byte input is compared bytewise, never split
        assert!(!abbrev("é", "Account", 1));
    }
}
