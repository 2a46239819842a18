//! Memory sizes as Slurm reads and prints them.
//!
//! * [`parse_mem_mb`]: `--mem`, `--mem-per-cpu` (Slurm's `str_to_mbytes`):
//!   a number with optional `K`/`M`/`G`/`T` (optionally followed by `B`),
//!   plain number = MB, `K` rounds up to whole MB.
//! * [`fmt_mem_exact`]: scontrol `MinMemoryNode=4G`, `MinTmpDiskNode=0`
//!   (`convert_num_unit(.., CONVERT_NUM_UNIT_EXACT)`).
//! * [`fmt_mem_squeue`]: squeue `%m` (`MIN_MEMORY`): `4G`, `500M`, `1.46G`
//!   (aggressive conversion).
//! * [`mbytes_to_str`]: Slurm's `mbytes_to_str`, e.g. `4G`, `1000` (M omitted).
//! * scontrol node `RealMemory=16000` is the plain number: no helper needed.

use std::fmt;

/// An invalid size string. Displays as `Invalid memory specification: S`;
/// the CLI prints its own line (`Invalid --mem specification`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeError(pub String);

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invalid memory specification: {}", self.0)
    }
}
impl std::error::Error for SizeError {}

/// Parse a memory size to MB (Slurm's `str_to_mbytes`). `0` is valid.
/// The number is `strtoll` (blanks and a sign allowed; out of range or
/// negative is refused); `K` rounds up to MB, `G` and `T` multiply in C's
/// `long long`, wrapping as Slurm's does, and the result is kept in 64
/// bits. A result equal to `NO_VAL64` is refused, as the callers do.
pub fn parse_mem_mb(s: &str) -> Result<u64, SizeError> {
    let bad = || SizeError(s.to_string());
    let n = crate::num::strtol(s, 10);
    if n.overflow || !n.converted() || n.value < 0 {
        return Err(bad());
    }
    let rest = n.rest(s).as_bytes();
    let v = n.value;
    let end_on_byte = rest.len() == 1 || (rest.len() == 2 && (rest[1] == b'B' || rest[1] == b'b'));
    let r = match rest.first() {
        None => v,
        Some(b'k' | b'K') if end_on_byte => v.wrapping_add(1023) / 1024,
        Some(b'm' | b'M') if end_on_byte => v,
        Some(b'g' | b'G') if end_on_byte => v.wrapping_mul(1024),
        Some(b't' | b'T') if end_on_byte => v.wrapping_mul(1024 * 1024),
        _ => return Err(bad()),
    } as u64;
    if r == u64::MAX - 1 {
        return Err(bad());
    }
    Ok(r)
}

/// Units as Slurm numbers them (`UNIT_NONE` .. `UNIT_PETA`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    None = 0,
    Kilo = 1,
    Mega = 2,
    Giga = 3,
    Tera = 4,
    Peta = 5,
}

impl Unit {
    /// A unit letter (`K`, `M`, `G`, `T`, `P`, either case), as Slurm's
    /// `get_unit_type` reads one.
    pub fn of_letter(c: char) -> Option<Unit> {
        Some(match c.to_ascii_uppercase() {
            'K' => Unit::Kilo,
            'M' => Unit::Mega,
            'G' => Unit::Giga,
            'T' => Unit::Tera,
            'P' => Unit::Peta,
            _ => return None,
        })
    }
}

/// Slurm's `convert_num_unit` (divisor 1024). `exact`: convert only while
/// no precision is lost (half values allowed); otherwise convert aggressively.
pub fn convert_num_unit(num: f64, orig: Unit, exact: bool) -> String {
    const UNITS: [&str; 7] = ["", "K", "M", "G", "T", "P", "?"];
    if num as i64 == 0 {
        return "0".into();
    }
    let mut num = num;
    let mut t = orig as usize;
    if exact {
        while num >= 1024.0 && (num as u64).is_multiple_of(512) {
            num /= 1024.0;
            t += 1;
        }
    } else {
        while num >= 1024.0 {
            num /= 1024.0;
            t += 1;
        }
    }
    if t > 5 {
        t = 6;
    }
    let i = num as u64;
    if i as f64 == num {
        format!("{}{}", i, UNITS[t])
    } else {
        format!("{:.2}{}", num, UNITS[t])
    }
}

/// scontrol's `MinMemoryNode=`/`MinMemoryCPU=`/`MinTmpDiskNode=` value.
pub fn fmt_mem_exact(mb: u64) -> String {
    convert_num_unit(mb as f32 as f64, Unit::Mega, true)
}

/// squeue `%m` value (aggressive conversion; `squeue --noconvert` prints `{mb}M`).
pub fn fmt_mem_squeue(mb: u64) -> String {
    convert_num_unit(mb as f32 as f64, Unit::Mega, false)
}

/// Slurm's `mbytes_to_str`: largest exact unit, `M` omitted (`4G`, `1000`);
/// past `P` (and for 0) Slurm's unit table ends in `?` (`0?`, `8?`).
pub fn mbytes_to_str(mb: u64) -> String {
    const U: [char; 5] = ['M', 'G', 'T', 'P', '?'];
    let mut m = mb;
    let mut i = 0;
    while U[i] != '?' {
        if m != 0 && !m.is_multiple_of(1024) {
            break;
        }
        m /= 1024;
        i += 1;
    }
    if U[i] == 'M' {
        m.to_string()
    } else {
        format!("{}{}", m, U[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse() {
        assert_eq!(parse_mem_mb("4G"), Ok(4096));
        assert_eq!(parse_mem_mb("4g"), Ok(4096));
        assert_eq!(parse_mem_mb("4GB"), Ok(4096));
        assert_eq!(parse_mem_mb("512M"), Ok(512));
        assert_eq!(parse_mem_mb("512"), Ok(512));
        assert_eq!(parse_mem_mb("1T"), Ok(1048576));
        assert_eq!(parse_mem_mb("100K"), Ok(1));
        assert_eq!(parse_mem_mb("2048K"), Ok(2));
        assert_eq!(parse_mem_mb("2049k"), Ok(3));
        assert_eq!(parse_mem_mb("0"), Ok(0));
        assert_eq!(parse_mem_mb("0G"), Ok(0));
        assert_eq!(parse_mem_mb("9999999999999T"), Ok(9999999999999 << 20));
        for bad in ["", "G", "4X", "4GBB", "4 G", "-1", "-5G", "1.5G", "abc", "4Gx", "99999999999999999999", "1P"] {
            assert!(parse_mem_mb(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_mem_mb("x").unwrap_err().to_string(), "Invalid memory specification: x");
    }

    #[test]
    fn format() {
        assert_eq!(fmt_mem_exact(4096), "4G");
        assert_eq!(fmt_mem_exact(1536), "1.50G");
        assert_eq!(fmt_mem_exact(1000), "1000M");
        assert_eq!(fmt_mem_exact(0), "0");
        assert_eq!(fmt_mem_exact(1048576), "1T");
        assert_eq!(fmt_mem_squeue(500), "500M");
        assert_eq!(fmt_mem_squeue(4096), "4G");
        assert_eq!(fmt_mem_squeue(1500), "1.46G");
        assert_eq!(fmt_mem_squeue(0), "0");
        assert_eq!(mbytes_to_str(4096), "4G");
        assert_eq!(mbytes_to_str(1000), "1000");
        assert_eq!(mbytes_to_str(0), "0?");
        assert_eq!(mbytes_to_str(8 << 40), "8?");
        assert_eq!(mbytes_to_str(3 * 1024 * 1024), "3T");
        assert_eq!(convert_num_unit(2048.0, Unit::Kilo, true), "2M");
        assert_eq!(convert_num_unit(5.0, Unit::None, false), "5");
    }
}
