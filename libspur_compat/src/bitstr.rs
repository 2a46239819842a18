//! Slurm's bitstrings (`bitstr_t`, src/common/bitstring.h), exported under
//! the `slurm_bit_*` names libslurm gives them: Perl's `Slurm::Bitstr`
//! wraps the whole family, and job/node records carry bitmaps in this form.
//!
//! # Layout
//!
//! A `bitstr_t *` points to an array of 64-bit words: word 0 holds the magic
//! number `0x42434445`, word 1 the number of bits, and the bits follow, bit
//! `i` in word `2 + i / 64` at position `i % 64` (least significant first,
//! as on the little-endian machines Slurm runs on). The array is one block
//! in Slurm's xmalloc layout, so `slurm_xfree` and `slurm_bit_free` both
//! release it; `slurm_bit_free` clears the magic number first.
//!
//! # Behaviour
//!
//! Answers are Slurm's, release by release (22.05's `slurm_bit_and` works
//! on whole words, 24.11's stops at the shorter bitmap's last bit), with
//! the same quirks callers may depend on: `slurm_bit_nffs` does not look at
//! a run ending in the last `n - 1` bits, the `a-b:step` form of
//! `slurm_bitfmt2int` leaves out `b`, `slurm_bit_fmt_full` gives NULL for
//! an empty set. The bits past the end of the last word are kept clear
//! (Slurm's `bit_not` sets them, to no effect on any answer here).
//!
//! Where Slurm asserts (a NULL or freed bitmap, a bit outside it, sizes
//! that differ where they must not) and so aborts the caller, these return
//! the function's failure value (-1 for positions, 0 for counts and tests,
//! NULL for new bitmaps) and change nothing.

use crate::guard;
use crate::sys::{bitoff_t, bitstr_t};
use std::ffi::{c_char, c_int, CStr};
use std::ptr::null_mut;

/// Slurm's `BITSTR_MAGIC`, in word 0 of a live bitstring.
const MAGIC: i64 = 0x4243_4445;
/// Words before the bits: the magic number and the bit count.
const OVERHEAD: usize = 2;
/// Bits per word.
const W: i64 = 64;
/// The most bits a bitstring may hold here (Slurm asserts 2^30).
const MAX_BITS: i64 = 1 << 40;

/// A live bitstring seen through its caller's pointer: its bit words and
/// its size. All access goes through raw pointers, so two views of the same
/// bitstring (`slurm_bit_and(b, b)`) are harmless.
#[derive(Clone, Copy)]
struct Bm {
    data: *mut u64,
    n: i64,
}

/// Number of data words for `n` bits.
fn words_for(n: i64) -> usize {
    usize::try_from((n + W - 1) / W).unwrap_or(0)
}

/// The bits below `n % 64` of a word (all of them when `n` ends a word).
fn low_mask(n: i64) -> u64 {
    match n % W {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

impl Bm {
    /// The bitstring behind a caller's pointer; None for NULL, a block
    /// without the magic number (freed, or not a bitstring) or a size
    /// outside what this library allocates.
    ///
    /// # Safety
    /// `b` is NULL or points to at least two readable words; when word 0
    /// is the magic number, `b` is a bitstring (this library's or Slurm's
    /// layout) holding as many bits as word 1 says, valid while the view is
    /// used and reached by no other thread meanwhile (Slurm's bitstrings
    /// are not locked either).
    unsafe fn of(b: *mut bitstr_t) -> Option<Bm> {
        if b.is_null() {
            return None;
        }
        // SAFETY: b points to two readable words (the contract above).
        let (magic, n) = unsafe { (b.read(), b.add(1).read()) };
        if magic != MAGIC || !(0..=MAX_BITS).contains(&n) {
            return None;
        }
        // SAFETY: the words after the header are the bits (the contract).
        Some(Bm { data: unsafe { b.add(OVERHEAD) }.cast::<u64>(), n })
    }

    fn words(self) -> usize {
        words_for(self.n)
    }

    fn word(self, i: usize) -> u64 {
        debug_assert!(i < self.words());
        // SAFETY: i is below the word count of a live bitstring (`of`).
        unsafe { self.data.add(i).read() }
    }

    fn set_word(self, i: usize, v: u64) {
        debug_assert!(i < self.words());
        // SAFETY: as in `word`; the block is writable (it was allocated for
        // the caller, who hands it to a function that changes it).
        unsafe { self.data.add(i).write(v) }
    }

    /// The last word's valid bits (a mask for word `words() - 1`).
    fn tail_mask(self) -> u64 {
        low_mask(self.n)
    }

    fn valid(self, bit: i64) -> bool {
        (0..self.n).contains(&bit)
    }

    fn test(self, bit: i64) -> bool {
        self.valid(bit) && self.word((bit / W) as usize) >> (bit % W) & 1 == 1
    }

    fn put(self, bit: i64, on: bool) {
        if !self.valid(bit) {
            return;
        }
        let i = (bit / W) as usize;
        let m = 1u64 << (bit % W);
        let w = self.word(i);
        self.set_word(i, if on { w | m } else { w & !m });
    }

    /// Set or clear bits `start..=stop` (nothing when either is outside the
    /// bitstring or `start > stop`).
    fn put_range(self, start: i64, stop: i64, on: bool) {
        if !self.valid(start) || !self.valid(stop) || start > stop {
            return;
        }
        let mut bit = start;
        while bit <= stop {
            let i = (bit / W) as usize;
            let lo = bit % W;
            let hi = if stop / W == bit / W { stop % W } else { W - 1 };
            let m = (u64::MAX >> (W - 1 - hi)) & (u64::MAX << lo);
            let w = self.word(i);
            self.set_word(i, if on { w | m } else { w & !m });
            bit = (i as i64 + 1) * W;
        }
    }

    fn count(self) -> i64 {
        (0..self.words()).map(|i| i64::from(self.masked(i).count_ones())).sum()
    }

    /// Word `i` with the bits past the end cleared.
    fn masked(self, i: usize) -> u64 {
        if i + 1 == self.words() {
            self.word(i) & self.tail_mask()
        } else {
            self.word(i)
        }
    }

    /// Set bits in `[start, end)`, `end` clipped to the size.
    fn count_range(self, start: i64, end: i64) -> i64 {
        let end = end.min(self.n);
        (start.max(0)..end).filter(|&b| self.test(b)).count() as i64
    }

    fn first_set(self) -> i64 {
        (0..self.words())
            .find_map(|i| {
                let w = self.masked(i);
                (w != 0).then(|| i as i64 * W + i64::from(w.trailing_zeros()))
            })
            .unwrap_or(-1)
    }

    /// The last set bit at or below `from`.
    fn last_set_from(self, from: i64) -> i64 {
        if !self.valid(from) {
            return -1;
        }
        let top = (from / W) as usize;
        (0..=top)
            .rev()
            .find_map(|i| {
                let mut w = self.masked(i);
                if i == top {
                    w &= low_mask(from + 1);
                }
                (w != 0).then(|| i as i64 * W + 63 - i64::from(w.leading_zeros()))
            })
            .unwrap_or(-1)
    }

    /// The positions of the runs of set bits, as (first, last) pairs.
    fn runs(self) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        let mut bit = 0;
        while bit < self.n {
            if self.word((bit / W) as usize) == 0 {
                bit = (bit / W + 1) * W;
                continue;
            }
            if self.test(bit) {
                let start = bit;
                while self.test(bit + 1) {
                    bit += 1;
                }
                out.push((start, bit));
            }
            bit += 1;
        }
        out
    }

    /// The bits as `0-3,5` (empty when none is set).
    fn ranges(self) -> String {
        let parts: Vec<String> =
            self.runs().into_iter().map(|(a, b)| if a == b { a.to_string() } else { format!("{}-{}", a, b) }).collect();
        parts.join(",")
    }
}

/// A new, all-clear bitstring of `n` bits in xmalloc's layout (NULL for a
/// size outside `0..=MAX_BITS` or when memory runs out).
fn alloc(n: i64) -> *mut bitstr_t {
    if !(0..=MAX_BITS).contains(&n) {
        return null_mut();
    }
    let b = crate::xmalloc::xalloc((OVERHEAD + words_for(n)) * 8).cast::<bitstr_t>();
    if !b.is_null() {
        // SAFETY: b is a new zeroed block of at least two words.
        unsafe {
            b.write(MAGIC);
            b.add(1).write(n);
        }
    }
    b
}

/// A new bitstring with `src`'s size and bits.
fn copy_of(src: Bm) -> *mut bitstr_t {
    let b = alloc(src.n);
    // SAFETY: b is NULL or a new bitstring of src.n bits.
    if let Some(dst) = unsafe { Bm::of(b) } {
        for i in 0..src.words() {
            dst.set_word(i, src.masked(i));
        }
    }
    b
}

/// Text as Slurm writes numbers into a caller's buffer: at most `len - 1`
/// bytes and a NUL. Returns `str`.
///
/// # Safety
/// `str` points to `len` writable bytes.
unsafe fn write_truncated(str: *mut c_char, len: i32, text: &str) -> *mut c_char {
    let room = usize::try_from(len).unwrap_or(0);
    if room == 0 {
        return str;
    }
    let n = text.len().min(room - 1);
    // SAFETY: n + 1 <= room bytes of the caller's buffer; our own source.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), str.cast::<u8>(), n);
        str.add(n).write(0);
    }
    str
}

/// The start/end pairs a range string names, as Slurm's `bitfmt2int` reads
/// it (None for a step form that does not parse).
fn parse_pairs(s: &[u8]) -> Option<Vec<i32>> {
    if s.contains(&b':') {
        return parse_step_form(s);
    }
    let mut out = Vec::new();
    let (mut sum, mut start): (i32, Option<i32>) = (0, None);
    // the NUL that ends the C string closes the last range
    for (i, &c) in s.iter().chain(std::iter::once(&0u8)).enumerate() {
        match c {
            b'0'..=b'9' => sum = sum.wrapping_mul(10).wrapping_add(i32::from(c - b'0')),
            b'-' => {
                start = Some(sum);
                sum = 0;
            }
            b',' | 0 => {
                if i == 0 {
                    break;
                }
                out.push(start.unwrap_or(sum));
                out.push(sum);
                start = None;
                sum = 0;
            }
            _ => {} // anything else is skipped
        }
    }
    Some(out)
}

/// strtol's reading of a decimal number at the start of `s`: the value and
/// the rest.
fn strtol(s: &[u8]) -> (i64, &[u8]) {
    let mut i = 0;
    while i < s.len() && (s[i] == b' ' || (b'\t'..=b'\r').contains(&s[i])) {
        i += 1;
    }
    let neg = i < s.len() && s[i] == b'-';
    if i < s.len() && (s[i] == b'-' || s[i] == b'+') {
        i += 1;
    }
    let digits_at = i;
    let mut v: i64 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(i64::from(s[i] - b'0'));
        i += 1;
    }
    if i == digits_at {
        return (0, s); // no number: strtol leaves the pointer at the start
    }
    (if neg { -v } else { v }, &s[i..])
}

/// `first-last:step`: every step-th value from `first`, below `last`.
fn parse_step_form(s: &[u8]) -> Option<Vec<i32>> {
    let (first, rest) = strtol(s);
    let rest = rest.strip_prefix(b"-")?;
    let (last, rest) = strtol(rest);
    let rest = rest.strip_prefix(b":")?;
    let (step, rest) = strtol(rest);
    if !rest.is_empty() || last < first || step <= 0 {
        return None;
    }
    // (strtol's long, kept as Slurm keeps it: in an int32)
    let (first, last, step) = (first as i32, last as i32, step as i32);
    let mut out = Vec::new();
    let mut i = first;
    while i < last {
        out.push(i);
        out.push(i);
        match i.checked_add(step) {
            Some(next) => i = next,
            None => break,
        }
    }
    Some(out)
}

/// Clear `b` and set the ranges of `pairs`: 0, or -1 at the first range
/// outside `b` (the ranges before it stay set).
fn set_pairs(b: Bm, pairs: &[i32]) -> c_int {
    if b.n > 0 {
        b.put_range(0, b.n - 1, false);
    }
    for p in pairs.chunks(2) {
        let (a, z) = (i64::from(p[0]), i64::from(p[1]));
        if !b.valid(a) || !b.valid(z) {
            return -1;
        }
        b.put_range(a, z, true);
    }
    0
}

/// The bits as hexadecimal (MSB first, uppercase), over the first `nbits`.
fn hex(b: Bm, nbits: i64) -> String {
    if nbits <= 0 {
        return "0x0".into();
    }
    let digits = (nbits + 3) / 4;
    let mut s = String::with_capacity(digits as usize + 2);
    s.push_str("0x");
    for k in (0..digits).rev() {
        let v = (0..4).filter(|j| 4 * k + j < nbits && b.test(4 * k + j)).fold(0u32, |acc, j| acc | 1 << j);
        s.push(char::from_digit(v, 16).unwrap_or('0').to_ascii_uppercase());
    }
    s
}

// ---------------------------------------------------------------- exports

/// `bitstr_t *slurm_bit_alloc(bitoff_t nbits)`: a new bitstring of `nbits`
/// clear bits (release it with `slurm_bit_free` or `slurm_xfree`); NULL for
/// a negative size.
#[no_mangle]
pub extern "C" fn slurm_bit_alloc(nbits: bitoff_t) -> *mut bitstr_t {
    guard(null_mut(), || alloc(nbits))
}

/// `bitstr_t *slurm_bit_realloc(bitstr_t **b, bitoff_t nbits)`: resize
/// `*b` to `nbits`, keeping the bits both sizes hold, new ones clear; the
/// new bitstring replaces `*b` and is returned. NULL (and `*b` unchanged)
/// when `*b` is not a bitstring or memory runs out.
///
/// # Safety
/// `b` is NULL or points to a pointer that is NULL or a live bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_realloc(b: *mut *mut bitstr_t, nbits: bitoff_t) -> *mut bitstr_t {
    guard(null_mut(), || {
        if b.is_null() {
            return null_mut();
        }
        // SAFETY: b points to a readable pointer (the contract above).
        let old_ptr = unsafe { *b };
        // SAFETY: *b is NULL or a live bitstring.
        let Some(old) = (unsafe { Bm::of(old_ptr) }) else {
            return null_mut();
        };
        let new_ptr = alloc(nbits);
        // SAFETY: NULL or a new bitstring.
        let Some(new) = (unsafe { Bm::of(new_ptr) }) else {
            return null_mut();
        };
        for i in 0..old.words().min(new.words()) {
            new.set_word(i, old.masked(i));
        }
        if new.words() > 0 {
            let last = new.words() - 1;
            new.set_word(last, new.word(last) & new.tail_mask());
        }
        // SAFETY: old_ptr is a live bitstring, released once, and *b then
        // takes the new one (writable: the caller's contract).
        unsafe {
            old_ptr.write(0);
            let mut p = old_ptr.cast::<std::ffi::c_void>();
            crate::xmalloc::slurm_xfree(&mut p);
            *b = new_ptr;
        }
        new_ptr
    })
}

/// `void slurm_bit_free(bitstr_t **b)`: release `*b` and set it to NULL
/// (NULL `b` or `*b`, or a pointer that is not a live bitstring: nothing).
///
/// # Safety
/// `b` is NULL or points to a pointer that is NULL or a live bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_free(b: *mut *mut bitstr_t) {
    guard((), || {
        if b.is_null() {
            return;
        }
        // SAFETY: b points to a readable, writable pointer (the contract).
        let p = unsafe { *b };
        // SAFETY: p is NULL or a live bitstring.
        if unsafe { Bm::of(p) }.is_none() {
            return;
        }
        // SAFETY: p is a live bitstring in xmalloc's layout: its magic is
        // cleared, it is released once, and the caller's pointer cleared.
        unsafe {
            p.write(0);
            let mut v = p.cast::<std::ffi::c_void>();
            crate::xmalloc::slurm_xfree(&mut v);
            *b = null_mut();
        }
    })
}

/// `bitoff_t slurm_bit_size(bitstr_t *b)`: the number of bits (-1 for
/// what is not a bitstring).
///
/// # Safety
/// `b` is NULL or a live bitstring (every `b`, `b1`, `b2` and `dest` below
/// has this contract).
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_size(b: *mut bitstr_t) -> bitoff_t {
    // SAFETY: the contract above.
    guard(-1, || unsafe { Bm::of(b) }.map_or(-1, |b| b.n))
}

/// `int slurm_bit_test(bitstr_t *b, bitoff_t bit)`: 1 if the bit is set,
/// else 0 (0 too for a bit outside `b`).
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_test(b: *mut bitstr_t, bit: bitoff_t) -> c_int {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(0, || unsafe { Bm::of(b) }.map_or(0, |b| c_int::from(b.test(bit))))
}

/// `void slurm_bit_set(bitstr_t *b, bitoff_t bit)`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_set(b: *mut bitstr_t, bit: bitoff_t) {
    // SAFETY: b is NULL or live (the caller's contract).
    guard((), || {
        if let Some(b) = unsafe { Bm::of(b) } {
            b.put(bit, true)
        }
    })
}

/// `void slurm_bit_clear(bitstr_t *b, bitoff_t bit)`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_clear(b: *mut bitstr_t, bit: bitoff_t) {
    // SAFETY: b is NULL or live (the caller's contract).
    guard((), || {
        if let Some(b) = unsafe { Bm::of(b) } {
            b.put(bit, false)
        }
    })
}

/// `void slurm_bit_nset(bitstr_t *b, bitoff_t start, bitoff_t stop)`: set
/// bits `start` to `stop`, both included (nothing when `start > stop`).
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nset(b: *mut bitstr_t, start: bitoff_t, stop: bitoff_t) {
    // SAFETY: b is NULL or live (the caller's contract).
    guard((), || {
        if let Some(b) = unsafe { Bm::of(b) } {
            b.put_range(start, stop, true)
        }
    })
}

/// `void slurm_bit_nclear(bitstr_t *b, bitoff_t start, bitoff_t stop)`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nclear(b: *mut bitstr_t, start: bitoff_t, stop: bitoff_t) {
    // SAFETY: b is NULL or live (the caller's contract).
    guard((), || {
        if let Some(b) = unsafe { Bm::of(b) } {
            b.put_range(start, stop, false)
        }
    })
}

/// `void slurm_bit_set_all(bitstr_t *b)`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_set_all(b: *mut bitstr_t) {
    // SAFETY: b is NULL or live (the caller's contract).
    guard((), || {
        if let Some(b) = unsafe { Bm::of(b) } {
            b.put_range(0, b.n - 1, true)
        }
    })
}

/// `void slurm_bit_clear_all(bitstr_t *b)`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_clear_all(b: *mut bitstr_t) {
    // SAFETY: b is NULL or live (the caller's contract).
    guard((), || {
        if let Some(b) = unsafe { Bm::of(b) } {
            b.put_range(0, b.n - 1, false)
        }
    })
}

/// `bitoff_t slurm_bit_ffc(bitstr_t *b)`: the first clear bit, -1 if none.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_ffc(b: *mut bitstr_t) -> bitoff_t {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(-1, || unsafe { Bm::of(b) }.and_then(|b| (0..b.n).find(|&i| !b.test(i))).unwrap_or(-1))
}

/// `bitoff_t slurm_bit_ffs(bitstr_t *b)`: the first set bit, -1 if none.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_ffs(b: *mut bitstr_t) -> bitoff_t {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(-1, || unsafe { Bm::of(b) }.map_or(-1, |b| b.first_set()))
}

/// `bitoff_t slurm_bit_fls(bitstr_t *b)`: the last set bit, -1 if none.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fls(b: *mut bitstr_t) -> bitoff_t {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(-1, || unsafe { Bm::of(b) }.map_or(-1, |b| b.last_set_from(b.n - 1)))
}

/// `bitoff_t slurm_bit_fls_from_bit(bitstr_t *b, bitoff_t bit)` (24.11):
/// the last set bit at or below `bit`, -1 if none (or `bit` is outside).
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fls_from_bit(b: *mut bitstr_t, bit: bitoff_t) -> bitoff_t {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(-1, || unsafe { Bm::of(b) }.map_or(-1, |b| b.last_set_from(bit)))
}

/// `bitoff_t slurm_bit_nffc(bitstr_t *b, int32_t n)`: where the first run
/// of `n` clear bits starts, -1 if there is none (or `n` < 1).
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nffc(b: *mut bitstr_t, n: i32) -> bitoff_t {
    guard(-1, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return -1 };
        if n < 1 {
            return -1;
        }
        first_run(b, 0, b.n, i64::from(n), false)
    })
}

/// Where the first run of `n` bits equal to `set` lying in `[from, to)`
/// and starting at or after `from` begins (-1 if none).
fn first_run(b: Bm, from: i64, to: i64, n: i64, set: bool) -> i64 {
    let mut run = 0;
    for bit in from..to {
        if b.test(bit) == set {
            run += 1;
            if run >= n {
                return bit - (run - 1);
            }
        } else {
            run = 0;
        }
    }
    -1
}

/// `bitoff_t slurm_bit_nffs(bitstr_t *b, int32_t n)`: where the first run
/// of `n` set bits starts, -1 if none. As Slurm, the search stops at bit
/// `size - n`, so a run that ends within the last `n - 1` bits is found
/// only if it started early enough to reach `n` by then.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nffs(b: *mut bitstr_t, n: i32) -> bitoff_t {
    guard(-1, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return -1 };
        let n = i64::from(n);
        if n < 1 || n > b.n {
            return -1;
        }
        first_run(b, 0, b.n - n + 1, n, true)
    })
}

/// `bitoff_t slurm_bit_noc(bitstr_t *b, int32_t n, int32_t seed)`: a run of
/// `n` clear bits, looked for from `seed` first (unless the run could not
/// fit after it), then from the start, where the second search gives up at
/// the first set bit at or after `seed`; -1 if none.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_noc(b: *mut bitstr_t, n: i32, seed: i32) -> bitoff_t {
    guard(-1, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return -1 };
        let (n, mut seed) = (i64::from(n), i64::from(seed));
        if n < 1 || n > b.n {
            return -1;
        }
        if seed + n >= b.n {
            seed = b.n;
        }
        let found = first_run(b, seed.max(0), b.n, n, false);
        if found >= 0 {
            return found;
        }
        let mut run = 0;
        for bit in 0..b.n {
            if b.test(bit) {
                if bit >= seed {
                    break;
                }
                run = 0;
            } else {
                run += 1;
                if run >= n {
                    return bit - (run - 1);
                }
            }
        }
        -1
    })
}

/// Combine `b2` into `b1` word by word over the bits both hold: in 22.05
/// over every word those bits touch (b1's bits past the shorter size in
/// that word meet b2's clear ones), in 24.11 up to the last shared bit.
///
/// # Safety
/// As [`slurm_bit_size`] for both.
unsafe fn combine(b1: *mut bitstr_t, b2: *mut bitstr_t, op: fn(u64, u64) -> u64) {
    // SAFETY: both NULL or live (the caller's contract).
    let (Some(a), Some(b)) = (unsafe { Bm::of(b1) }, unsafe { Bm::of(b2) }) else {
        return;
    };
    let n = a.n.min(b.n);
    let words = words_for(n);
    for i in 0..words {
        let other = b.masked(i);
        let keep = if i + 1 == words && cfg!(not(feature = "slurm-22-05")) { low_mask(n) } else { u64::MAX };
        let w = a.word(i);
        a.set_word(i, (op(w, other) & keep) | (w & !keep));
    }
    if a.words() > 0 {
        let last = a.words() - 1;
        a.set_word(last, a.word(last) & a.tail_mask());
    }
}

/// `void slurm_bit_and(bitstr_t *b1, bitstr_t *b2)`: `b1 &= b2`.
///
/// # Safety
/// As [`slurm_bit_size`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_and(b1: *mut bitstr_t, b2: *mut bitstr_t) {
    // SAFETY: the caller's contract.
    guard((), || unsafe { combine(b1, b2, |x, y| x & y) })
}

/// `void slurm_bit_or(bitstr_t *b1, bitstr_t *b2)`: `b1 |= b2`.
///
/// # Safety
/// As [`slurm_bit_size`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_or(b1: *mut bitstr_t, b2: *mut bitstr_t) {
    // SAFETY: the caller's contract.
    guard((), || unsafe { combine(b1, b2, |x, y| x | y) })
}

/// `void slurm_bit_not(bitstr_t *b)`: flip every bit.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_not(b: *mut bitstr_t) {
    guard((), || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return };
        for i in 0..b.words() {
            let m = if i + 1 == b.words() { b.tail_mask() } else { u64::MAX };
            b.set_word(i, !b.word(i) & m);
        }
    })
}

/// `int32_t slurm_bit_set_count(bitstr_t *b)`: how many bits are set.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_set_count(b: *mut bitstr_t) -> i32 {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(0, || unsafe { Bm::of(b) }.map_or(0, |b| b.count() as i32))
}

/// `int32_t slurm_bit_clear_count(bitstr_t *b)`: how many bits are clear.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_clear_count(b: *mut bitstr_t) -> i32 {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(0, || unsafe { Bm::of(b) }.map_or(0, |b| (b.n - b.count()) as i32))
}

/// `int32_t slurm_bit_set_count_range(bitstr_t *b, int32_t start, int32_t
/// end)`: set bits from `start` to before `end` (`end` past the size counts
/// to the end; 0 when `start` is outside `b`).
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_set_count_range(b: *mut bitstr_t, start: i32, end: i32) -> i32 {
    guard(0, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return 0 };
        if !b.valid(i64::from(start)) {
            return 0;
        }
        b.count_range(i64::from(start), i64::from(end)) as i32
    })
}

/// `int32_t slurm_bit_clear_count_range(bitstr_t *b, int32_t start, int32_t
/// end)` (22.05): `end - start` less the set bits among them (0 when
/// `end <= start`); as Slurm, bits past the size count as clear.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_clear_count_range(b: *mut bitstr_t, start: i32, end: i32) -> i32 {
    guard(0, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(bm) = (unsafe { Bm::of(b) }) else { return 0 };
        let diff = i64::from(end) - i64::from(start);
        if diff < 1 {
            return 0;
        }
        let set = if bm.valid(i64::from(start)) { bm.count_range(i64::from(start), i64::from(end)) } else { 0 };
        (diff - set) as i32
    })
}

/// `int32_t slurm_bit_nset_max_count(bitstr_t *b)`: the longest run of set
/// bits.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nset_max_count(b: *mut bitstr_t) -> i32 {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(0, || unsafe { Bm::of(b) }.map_or(0, |b| b.runs().iter().map(|(s, e)| e - s + 1).max().unwrap_or(0) as i32))
}

/// `bitstr_t *slurm_bit_rotate_copy(bitstr_t *b1, int32_t n, bitoff_t
/// nbits)`: a new bitstring of `nbits` bits (at least `b1`'s) holding
/// `b1`'s bits moved up by `n` (down when negative), wrapping at `nbits`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_rotate_copy(b1: *mut bitstr_t, n: i32, nbits: bitoff_t) -> *mut bitstr_t {
    guard(null_mut(), || {
        // SAFETY: b1 is NULL or live (the caller's contract).
        let Some(src) = (unsafe { Bm::of(b1) }) else { return null_mut() };
        if nbits < src.n || nbits < 1 {
            return null_mut();
        }
        let shift = i64::from(n).rem_euclid(nbits);
        let out = alloc(nbits);
        // SAFETY: NULL or a new bitstring.
        if let Some(dst) = unsafe { Bm::of(out) } {
            for (s, e) in src.runs() {
                for bit in s..=e {
                    dst.put((bit + shift) % nbits, true);
                }
            }
        }
        out
    })
}

/// `void slurm_bit_rotate(bitstr_t *b1, int32_t n)`: rotate in place,
/// wrapping at its size.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_rotate(b1: *mut bitstr_t, n: i32) {
    guard((), || {
        // SAFETY: b1 is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b1) }) else { return };
        if n == 0 || b.n == 0 {
            return;
        }
        // SAFETY: b1 is live; the copy is new.
        let mut tmp = unsafe { slurm_bit_rotate_copy(b1, n, b.n) };
        // SAFETY: NULL or the new bitstring.
        if let Some(r) = unsafe { Bm::of(tmp) } {
            for i in 0..b.words() {
                b.set_word(i, r.word(i));
            }
        }
        // SAFETY: tmp is NULL or ours, released once.
        unsafe { slurm_bit_free(&mut tmp) };
    })
}

/// `char *slurm_bit_fmt(char *str, int32_t len, bitstr_t *b)`: the set bits
/// as ranges (`0-3,5`; empty when none) in `str`, cut to `len - 1` bytes
/// and a NUL; returns `str` (NULL for a NULL `str` or bitmap).
///
/// # Safety
/// `str` points to `len` writable bytes; `b` as [`slurm_bit_size`]'s.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt(str: *mut c_char, len: i32, b: *mut bitstr_t) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return null_mut() };
        if str.is_null() {
            return null_mut();
        }
        // SAFETY: str has len writable bytes (the caller's contract).
        unsafe { write_truncated(str, len, &b.ranges()) }
    })
}

/// `char *slurm_bit_fmt_full(bitstr_t *b)`: the ranges, uncut, in memory
/// the caller releases with `xfree`; NULL when no bit is set.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt_full(b: *mut bitstr_t) -> *mut c_char {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(null_mut(), || unsafe { Bm::of(b) }.map_or(null_mut(), |b| crate::xmalloc::xstr_nonempty(&b.ranges())))
}

/// `int slurm_bit_unfmt(bitstr_t *b, char *str)`: set the bits a range
/// string names (`0-3,5`), clearing the others; 0, or -1 for a step form
/// that does not parse or a range outside `b` (ranges before it stay set).
/// NULL or empty `str`: 0, `b` unchanged.
///
/// # Safety
/// `b` as [`slurm_bit_size`]'s; `str` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_unfmt(b: *mut bitstr_t, str: *mut c_char) -> c_int {
    guard(-1, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return -1 };
        if str.is_null() {
            return 0;
        }
        // SAFETY: NUL-terminated (the caller's contract).
        let s = unsafe { CStr::from_ptr(str) }.to_bytes();
        if s.is_empty() {
            return 0;
        }
        match parse_pairs(s) {
            Some(pairs) => set_pairs(b, &pairs),
            None => -1,
        }
    })
}

/// `int32_t *slurm_bitfmt2int(char *bit_str_ptr)`: the ranges of a range
/// string as start/end pairs ending with -1 (`0-3,5` gives 0 3 5 5 -1;
/// `first-last:step` gives each value below `last` as a pair), in memory
/// the caller releases with `xfree`; NULL for NULL or a step form that does
/// not parse.
///
/// # Safety
/// `bit_str_ptr` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_bitfmt2int(bit_str_ptr: *mut c_char) -> *mut i32 {
    guard(null_mut(), || {
        if bit_str_ptr.is_null() {
            return null_mut();
        }
        // SAFETY: NUL-terminated (the caller's contract).
        let s = unsafe { CStr::from_ptr(bit_str_ptr) }.to_bytes();
        let Some(mut v) = parse_pairs(s) else { return null_mut() };
        v.push(-1);
        crate::xmalloc::xarray(&v)
    })
}

/// `char *slurm_bit_fmt_hexmask(bitstr_t *b)`: `0x` and one hex digit per
/// 4 bits of the size (most significant first, uppercase; `0x0` for an
/// empty bitstring), in memory the caller releases with `xfree`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt_hexmask(b: *mut bitstr_t) -> *mut c_char {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(null_mut(), || unsafe { Bm::of(b) }.map_or(null_mut(), |b| crate::xmalloc::xstrdup(&hex(b, b.n))))
}

/// `char *slurm_bit_fmt_hexmask_trim(bitstr_t *b)`: as
/// `slurm_bit_fmt_hexmask` up to the last set bit (`0x0` when none).
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt_hexmask_trim(b: *mut bitstr_t) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: b is NULL or live (the caller's contract).
        unsafe { Bm::of(b) }.map_or(null_mut(), |b| crate::xmalloc::xstrdup(&hex(b, b.last_set_from(b.n - 1) + 1)))
    })
}

/// `int slurm_bit_unfmt_hexmask(bitstr_t *b, const char *str)`: clear `b`
/// and set the bits of a hex mask (`0x` optional, digits of either case,
/// least significant last); 0, or -1 for NULL, a character that is not a
/// hex digit, or a set bit past the size (the digits read before stay).
///
/// # Safety
/// `b` as [`slurm_bit_size`]'s; `str` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_unfmt_hexmask(b: *mut bitstr_t, str: *const c_char) -> c_int {
    guard(-1, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return -1 };
        if str.is_null() {
            return -1;
        }
        // SAFETY: NUL-terminated (the caller's contract).
        let s = unsafe { CStr::from_ptr(str) }.to_bytes();
        if b.n > 0 {
            b.put_range(0, b.n - 1, false);
        }
        let digits = s.strip_prefix(b"0x").unwrap_or(s);
        for (k, &c) in digits.iter().rev().enumerate() {
            let Some(v) = char::from(c).to_digit(16) else { return -1 };
            for j in 0..4 {
                if v >> j & 1 == 1 {
                    let bit = 4 * k as i64 + j;
                    if !b.valid(bit) {
                        return -1;
                    }
                    b.put(bit, true);
                }
            }
        }
        0
    })
}

/// `char *slurm_bit_fmt_binmask(bitstr_t *b)` (22.05): one `0`/`1` per bit,
/// most significant first, in memory the caller releases with `xfree`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt_binmask(b: *mut bitstr_t) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return null_mut() };
        let s: String = (0..b.n).rev().map(|i| if b.test(i) { '1' } else { '0' }).collect();
        crate::xmalloc::xstrdup(&s)
    })
}

/// `void slurm_bit_unfmt_binmask(bitstr_t *b, const char *str)` (22.05):
/// clear `b` and set bit `i` when the `i`-th character from the end is odd
/// (`1`, as Slurm reads any character); characters past the size are
/// ignored.
///
/// # Safety
/// `b` as [`slurm_bit_size`]'s; `str` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_unfmt_binmask(b: *mut bitstr_t, str: *const c_char) {
    guard((), || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return };
        if str.is_null() {
            return;
        }
        // SAFETY: NUL-terminated (the caller's contract).
        let s = unsafe { CStr::from_ptr(str) }.to_bytes();
        if b.n > 0 {
            b.put_range(0, b.n - 1, false);
        }
        for (i, &c) in s.iter().rev().enumerate() {
            if c & 1 == 1 {
                b.put(i as i64, true);
            }
        }
    })
}

/// `void slurm_bit_fill_gaps(bitstr_t *b)`: set every bit between the first
/// and the last set bit.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fill_gaps(b: *mut bitstr_t) {
    guard((), || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return };
        let first = b.first_set();
        if first >= 0 {
            b.put_range(first, b.last_set_from(b.n - 1), true);
        }
    })
}

/// `int slurm_bit_super_set(bitstr_t *b1, bitstr_t *b2)`: 1 if every bit
/// set in `b1` is set in `b2`, else 0.
///
/// # Safety
/// As [`slurm_bit_size`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_super_set(b1: *mut bitstr_t, b2: *mut bitstr_t) -> c_int {
    guard(0, || {
        // SAFETY: both NULL or live (the caller's contract).
        let (Some(a), Some(b)) = (unsafe { Bm::of(b1) }, unsafe { Bm::of(b2) }) else { return 0 };
        let all = (0..a.words()).all(|i| {
            let other = if i < b.words() { b.masked(i) } else { 0 };
            a.masked(i) & !other == 0
        });
        c_int::from(all)
    })
}

/// The common set bits of two bitstrings: counted, or 1 at the first.
///
/// # Safety
/// As [`slurm_bit_size`] for both.
unsafe fn overlap(b1: *mut bitstr_t, b2: *mut bitstr_t, count: bool) -> i32 {
    // SAFETY: both NULL or live (the caller's contract).
    let (Some(a), Some(b)) = (unsafe { Bm::of(b1) }, unsafe { Bm::of(b2) }) else { return 0 };
    let n = a.n.min(b.n);
    let words = words_for(n);
    let mut total = 0;
    for i in 0..words {
        let mut w = a.word(i) & b.word(i);
        if i + 1 == words {
            w &= low_mask(n);
        }
        if !count && w != 0 {
            return 1;
        }
        total += w.count_ones() as i32;
    }
    total
}

/// `int slurm_bit_overlap(bitstr_t *b1, bitstr_t *b2)`: how many bits are
/// set in both.
///
/// # Safety
/// As [`slurm_bit_size`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_overlap(b1: *mut bitstr_t, b2: *mut bitstr_t) -> c_int {
    // SAFETY: the caller's contract.
    guard(0, || unsafe { overlap(b1, b2, true) })
}

/// `int slurm_bit_overlap_any(bitstr_t *b1, bitstr_t *b2)`: 1 if some bit is
/// set in both, else 0.
///
/// # Safety
/// As [`slurm_bit_size`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_overlap_any(b1: *mut bitstr_t, b2: *mut bitstr_t) -> c_int {
    // SAFETY: the caller's contract.
    guard(0, || unsafe { overlap(b1, b2, false) })
}

/// `int slurm_bit_equal(bitstr_t *b1, bitstr_t *b2)`: 1 if both have the
/// same size and bits, else 0.
///
/// # Safety
/// As [`slurm_bit_size`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_equal(b1: *mut bitstr_t, b2: *mut bitstr_t) -> c_int {
    guard(0, || {
        // SAFETY: both NULL or live (the caller's contract).
        let (Some(a), Some(b)) = (unsafe { Bm::of(b1) }, unsafe { Bm::of(b2) }) else { return 0 };
        c_int::from(a.n == b.n && (0..a.words()).all(|i| a.masked(i) == b.masked(i)))
    })
}

/// `void slurm_bit_copybits(bitstr_t *dest, bitstr_t *src)`: give `dest`
/// the bits of `src` (of the same size; nothing when the sizes differ).
///
/// # Safety
/// As [`slurm_bit_size`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_copybits(dest: *mut bitstr_t, src: *mut bitstr_t) {
    guard((), || {
        // SAFETY: both NULL or live (the caller's contract).
        let (Some(d), Some(s)) = (unsafe { Bm::of(dest) }, unsafe { Bm::of(src) }) else { return };
        if d.n == s.n {
            for i in 0..s.words() {
                d.set_word(i, s.masked(i));
            }
        }
    })
}

/// `bitstr_t *slurm_bit_copy(bitstr_t *b)`: a new bitstring equal to `b`.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_copy(b: *mut bitstr_t) -> *mut bitstr_t {
    // SAFETY: b is NULL or live (the caller's contract).
    guard(null_mut(), || unsafe { Bm::of(b) }.map_or(null_mut(), copy_of))
}

/// `bitstr_t *slurm_bit_pick_cnt(bitstr_t *b, bitoff_t nbits)`: a new
/// bitstring of `b`'s size holding the first `nbits` set bits of `b`; NULL
/// when `b` has fewer set bits (or is smaller than `nbits`).
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_pick_cnt(b: *mut bitstr_t, nbits: bitoff_t) -> *mut bitstr_t {
    guard(null_mut(), || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(src) = (unsafe { Bm::of(b) }) else { return null_mut() };
        if src.n < nbits || src.count() < nbits {
            return null_mut();
        }
        let out = alloc(src.n);
        // SAFETY: NULL or a new bitstring.
        if let Some(dst) = unsafe { Bm::of(out) } {
            let mut left = nbits;
            let mut bit = 0;
            while left > 0 && bit < src.n {
                if src.test(bit) {
                    dst.put(bit, true);
                    left -= 1;
                }
                bit += 1;
            }
        }
        out
    })
}

/// `bitoff_t slurm_bit_get_bit_num(bitstr_t *b, int32_t pos)`: the
/// position of the set bit whose rank is `pos` (0 for the first), -1 if
/// there are not that many.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_get_bit_num(b: *mut bitstr_t, pos: i32) -> bitoff_t {
    guard(-1, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return -1 };
        let Ok(rank) = usize::try_from(pos) else { return -1 };
        (0..b.n).filter(|&i| b.test(i)).nth(rank).unwrap_or(-1)
    })
}

/// `int32_t slurm_bit_get_pos_num(bitstr_t *b, bitoff_t pos)` (22.05): the
/// rank of set bit `pos` among the set bits (0 for the first), -1 when bit
/// `pos` is not set.
///
/// # Safety
/// As [`slurm_bit_size`].
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_get_pos_num(b: *mut bitstr_t, pos: bitoff_t) -> i32 {
    guard(-1, || {
        // SAFETY: b is NULL or live (the caller's contract).
        let Some(b) = (unsafe { Bm::of(b) }) else { return -1 };
        if !b.test(pos) {
            return -1;
        }
        (b.count_range(0, pos + 1) - 1) as i32
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(b: *mut bitstr_t) -> String {
        let mut buf = [0 as c_char; 64];
        // SAFETY: buf has 64 writable bytes; b is live.
        unsafe {
            let p = slurm_bit_fmt(buf.as_mut_ptr(), 64, b);
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }

    /// Take an xmalloc'ed string.
    fn take(p: *mut c_char) -> Option<String> {
        if p.is_null() {
            return None;
        }
        // SAFETY: p is a live xmalloc'ed C string, released once.
        unsafe {
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            let mut v = p.cast::<std::ffi::c_void>();
            crate::xmalloc::slurm_xfree(&mut v);
            Some(s)
        }
    }

    fn from(n: i64, spec: &str) -> *mut bitstr_t {
        let b = slurm_bit_alloc(n);
        let s = std::ffi::CString::new(spec).unwrap();
        // SAFETY: b is live; s is NUL-terminated.
        assert_eq!(unsafe { slurm_bit_unfmt(b, s.as_ptr().cast_mut()) }, 0);
        b
    }

    fn free(mut b: *mut bitstr_t) {
        // SAFETY: b is ours and live.
        unsafe { slurm_bit_free(&mut b) };
        assert!(b.is_null());
    }

    #[test]
    fn layout_alloc_and_free() {
        let b = slurm_bit_alloc(100);
        // SAFETY: b is a new bitstring of 100 bits: 2 + 2 words.
        unsafe {
            assert_eq!((b.read(), b.add(1).read()), (0x42434445, 100));
            let head = b.cast::<usize>().sub(2);
            assert_eq!((head.read(), head.add(1).read()), (0x42, 32));
            slurm_bit_set(b, 65);
            assert_eq!(b.add(3).read(), 2);
            assert_eq!(slurm_bit_size(b), 100);
            assert_eq!(slurm_bit_size(null_mut()), -1);
            // slurm_xfree releases it too
            let mut v = b.cast::<std::ffi::c_void>();
            crate::xmalloc::slurm_xfree(&mut v);
        }
        assert!(slurm_bit_alloc(-1).is_null());
        // SAFETY: NULLs are nothing to free.
        unsafe {
            slurm_bit_free(null_mut());
            slurm_bit_free(&mut null_mut());
        }
    }

    #[test]
    fn set_test_find() {
        let b = slurm_bit_alloc(130);
        // SAFETY: b is live throughout.
        unsafe {
            assert_eq!((slurm_bit_ffs(b), slurm_bit_fls(b), slurm_bit_ffc(b)), (-1, -1, 0));
            slurm_bit_set(b, 3);
            slurm_bit_nset(b, 60, 70);
            slurm_bit_set(b, 129);
            assert_eq!(fmt(b), "3,60-70,129");
            assert_eq!((slurm_bit_test(b, 3), slurm_bit_test(b, 4), slurm_bit_test(b, 999)), (1, 0, 0));
            assert_eq!((slurm_bit_ffs(b), slurm_bit_fls(b)), (3, 129));
            assert_eq!(slurm_bit_fls_from_bit(b, 100), 70);
            assert_eq!(slurm_bit_fls_from_bit(b, 2), -1);
            assert_eq!((slurm_bit_set_count(b), slurm_bit_clear_count(b)), (13, 117));
            assert_eq!(slurm_bit_set_count_range(b, 0, 64), 5);
            assert_eq!(slurm_bit_set_count_range(b, 65, 1000), 7);
            assert_eq!(slurm_bit_clear_count_range(b, 0, 10), 9);
            assert_eq!(slurm_bit_nset_max_count(b), 11);
            assert_eq!(slurm_bit_nffs(b, 5), 60);
            assert_eq!(slurm_bit_nffc(b, 4), 4);
            assert_eq!(slurm_bit_get_bit_num(b, 1), 60);
            assert_eq!(slurm_bit_get_bit_num(b, 13), -1);
            assert_eq!(slurm_bit_get_pos_num(b, 129), 12);
            assert_eq!(slurm_bit_get_pos_num(b, 4), -1);
            slurm_bit_clear(b, 3);
            slurm_bit_nclear(b, 61, 69);
            assert_eq!(fmt(b), "60,70,129");
            slurm_bit_fill_gaps(b);
            assert_eq!(fmt(b), "60-129");
            slurm_bit_not(b);
            assert_eq!(fmt(b), "0-59");
            assert_eq!(slurm_bit_ffc(b), 60);
            slurm_bit_set_all(b);
            assert_eq!(slurm_bit_ffc(b), -1);
            assert_eq!(slurm_bit_set_count(b), 130);
            slurm_bit_clear_all(b);
            assert_eq!(slurm_bit_set_count(b), 0);
        }
        free(b);
    }

    #[test]
    fn nffs_stops_where_slurm_stops() {
        // a run of 2 at the very end is not found by Slurm's bit_nffs
        let b = from(8, "6-7");
        // SAFETY: b is live.
        unsafe {
            assert_eq!(slurm_bit_nffs(b, 2), -1);
            assert_eq!(slurm_bit_nffs(b, 1), 6);
        }
        free(b);
        let b = from(8, "5-7");
        // SAFETY: b is live.
        assert_eq!(unsafe { slurm_bit_nffs(b, 2) }, 5);
        free(b);
    }

    #[test]
    fn noc_seeds() {
        let b = from(16, "0-3,8");
        // SAFETY: b is live.
        unsafe {
            assert_eq!(slurm_bit_noc(b, 3, 5), 5);
            assert_eq!(slurm_bit_noc(b, 3, 6), 9);
            assert_eq!(slurm_bit_noc(b, 3, 14), 4); // too near the end: from 0
            assert_eq!(slurm_bit_noc(b, 5, 0), 9);
        }
        free(b);
    }

    #[test]
    fn and_or_equal_copy() {
        let a = from(10, "0-5");
        let b = from(10, "4-9");
        // SAFETY: all live.
        unsafe {
            assert_eq!(slurm_bit_overlap(a, b), 2);
            assert_eq!(slurm_bit_overlap_any(a, b), 1);
            assert_eq!(slurm_bit_super_set(a, b), 0);
            let c = slurm_bit_copy(a);
            assert_eq!(slurm_bit_equal(a, c), 1);
            slurm_bit_and(c, b);
            assert_eq!(fmt(c), "4-5");
            assert_eq!(slurm_bit_super_set(c, b), 1);
            slurm_bit_or(c, a);
            assert_eq!(fmt(c), "0-5");
            slurm_bit_copybits(c, b);
            assert_eq!(slurm_bit_equal(c, b), 1);
            assert_eq!(slurm_bit_equal(c, a), 0);
            slurm_bit_and(c, c);
            assert_eq!(fmt(c), "4-9");
            free(c);
        }
        free(a);
        free(b);
        // sizes differ: 22.05 ands whole words, 24.11 the shared bits only
        let big = from(100, "0-99");
        let small = from(70, "0-69");
        // SAFETY: both live.
        unsafe { slurm_bit_and(big, small) };
        let want = if cfg!(feature = "slurm-22-05") { "0-69" } else { "0-99" };
        assert_eq!(fmt(big), want);
        free(big);
        free(small);
    }

    #[test]
    fn rotate() {
        let b = from(8, "0,6");
        // SAFETY: all live.
        unsafe {
            let r = slurm_bit_rotate_copy(b, 3, 10);
            assert_eq!((slurm_bit_size(r), fmt(r)), (10, "3,9".to_string()));
            free(r);
            let r = slurm_bit_rotate_copy(b, -1, 8);
            assert_eq!(fmt(r), "5,7");
            free(r);
            assert!(slurm_bit_rotate_copy(b, 1, 4).is_null());
            slurm_bit_rotate(b, 3);
            assert_eq!(fmt(b), "1,3");
        }
        free(b);
    }

    #[test]
    fn range_strings() {
        let b = slurm_bit_alloc(16);
        let mut buf = [0 as c_char; 6];
        // SAFETY: b live; buf has 6 bytes; the strings are NUL-terminated.
        unsafe {
            assert_eq!(take(slurm_bit_fmt_full(b)), None);
            assert_eq!(slurm_bit_unfmt(b, c"1-3,5,9-10".as_ptr().cast_mut()), 0);
            assert_eq!(fmt(b), "1-3,5,9-10");
            assert_eq!(take(slurm_bit_fmt_full(b)).as_deref(), Some("1-3,5,9-10"));
            slurm_bit_fmt(buf.as_mut_ptr(), 6, b);
            assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str(), Ok("1-3,5"));
            // a range outside: -1, the ranges before it stay
            assert_eq!(slurm_bit_unfmt(b, c"2,7-20,1".as_ptr().cast_mut()), -1);
            assert_eq!(fmt(b), "2");
            // empty or NULL: 0, unchanged
            assert_eq!(slurm_bit_unfmt(b, c"".as_ptr().cast_mut()), 0);
            assert_eq!(slurm_bit_unfmt(b, null_mut()), 0);
            assert_eq!(fmt(b), "2");
            // other characters are skipped
            assert_eq!(slurm_bit_unfmt(b, c"[4-6]".as_ptr().cast_mut()), 0);
            assert_eq!(fmt(b), "4-6");
            // the step form leaves out its last value
            assert_eq!(slurm_bit_unfmt(b, c"1-13:4".as_ptr().cast_mut()), 0);
            assert_eq!(fmt(b), "1,5,9");
            assert_eq!(slurm_bit_unfmt(b, c"1-13:x".as_ptr().cast_mut()), -1);
        }
        free(b);
        let pairs = |s: &CStr| -> Option<Vec<i32>> {
            // SAFETY: s is NUL-terminated; the result is xmalloc'ed and ends with -1.
            unsafe {
                let p = slurm_bitfmt2int(s.as_ptr().cast_mut());
                if p.is_null() {
                    return None;
                }
                let mut v = Vec::new();
                let mut i = 0;
                while *p.add(i) != -1 {
                    v.push(*p.add(i));
                    i += 1;
                }
                let mut q = p.cast::<std::ffi::c_void>();
                crate::xmalloc::slurm_xfree(&mut q);
                Some(v)
            }
        };
        assert_eq!(pairs(c"0-30,45,50-60"), Some(vec![0, 30, 45, 45, 50, 60]));
        assert_eq!(pairs(c"1-17:4"), Some(vec![1, 1, 5, 5, 9, 9, 13, 13]));
        assert_eq!(pairs(c""), Some(vec![]));
        assert_eq!(pairs(c"5-1:2"), None);
    }

    #[test]
    fn masks() {
        let b = from(12, "0,4-7,11");
        // SAFETY: b is live; strings NUL-terminated.
        unsafe {
            assert_eq!(take(slurm_bit_fmt_hexmask(b)).as_deref(), Some("0x8F1"));
            assert_eq!(take(slurm_bit_fmt_binmask(b)).as_deref(), Some("100011110001"));
            slurm_bit_clear(b, 11);
            assert_eq!(take(slurm_bit_fmt_hexmask(b)).as_deref(), Some("0x0F1"));
            assert_eq!(take(slurm_bit_fmt_hexmask_trim(b)).as_deref(), Some("0xF1"));
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"0xa3".as_ptr()), 0);
            assert_eq!(fmt(b), "0-1,5,7");
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"0x1000".as_ptr()), -1);
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"0x0fff".as_ptr()), 0);
            assert_eq!(fmt(b), "0-11");
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"1g".as_ptr()), -1);
            slurm_bit_unfmt_binmask(b, c"1101".as_ptr());
            assert_eq!(fmt(b), "0,2-3");
            slurm_bit_clear_all(b);
            assert_eq!(take(slurm_bit_fmt_hexmask_trim(b)).as_deref(), Some("0x0"));
        }
        free(b);
        let wide = from(72, "0,64,71");
        // SAFETY: live.
        assert_eq!(take(unsafe { slurm_bit_fmt_hexmask(wide) }).as_deref(), Some("0x810000000000000001"));
        free(wide);
        let empty = slurm_bit_alloc(0);
        // SAFETY: live.
        assert_eq!(take(unsafe { slurm_bit_fmt_hexmask(empty) }).as_deref(), Some("0x0"));
        free(empty);
    }

    #[test]
    fn pick_and_realloc() {
        let b = from(10, "1,3,5,7");
        // SAFETY: live; the results are ours.
        unsafe {
            let p = slurm_bit_pick_cnt(b, 3);
            assert_eq!(fmt(p), "1,3,5");
            free(p);
            assert!(slurm_bit_pick_cnt(b, 5).is_null());
            let mut q = b;
            let r = slurm_bit_realloc(&mut q, 4);
            assert_eq!((r, slurm_bit_size(r), fmt(r)), (q, 4, "1,3".to_string()));
            let r = slurm_bit_realloc(&mut q, 200);
            assert_eq!((slurm_bit_size(r), fmt(r)), (200, "1,3".to_string()));
            free(q);
        }
    }
}
