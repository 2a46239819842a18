//! The Standard Workload Format (SWF) of the Parallel Workloads Archive.
//!
//! A file is header and comment lines starting with `;` (the header's
//! `; MaxProcs: N` and `; MaxNodes: N` are read, the rest ignored), blank
//! lines, and one line per job of 18 whitespace-separated numbers:
//!
//! | # | field | used |
//! |---|---|---|
//! | 1 | job number | kept for reference |
//! | 2 | submit time (s) | yes |
//! | 3 | wait time | no |
//! | 4 | run time (s) | yes |
//! | 5 | allocated processors | when 8 is unknown |
//! | 6 | average CPU time | no |
//! | 7 | used memory | no |
//! | 8 | requested processors | yes |
//! | 9 | requested time (s) | yes |
//! | 10 | requested memory | no |
//! | 11 | status | no |
//! | 12 | user id | yes |
//! | 13-18 | group, executable, queue, partition, preceding job, think time | no |
//!
//! -1 means unknown. Every field must read as a number (some traces write
//! decimals, e.g. `358.00`), or the line is an error naming its number.

use std::fmt;

/// The most a time field may hold (about 34,000 years in seconds): larger
/// values are taken as a broken line rather than overflowing later.
const MAX_TIME: f64 = (1u64 << 40) as f64;

/// One job as the simulator uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceJob {
    /// The trace's job number (field 1).
    pub number: i64,
    /// Seconds from the trace's start.
    pub submit: i64,
    /// Seconds it runs: the trace's run time, cut to the time limit.
    pub run: i64,
    /// Processors (one CPU each): requested, else allocated.
    pub procs: u32,
    /// Minutes: the requested time rounded up to whole minutes, at least 1
    /// (the run time's when the request is unknown).
    pub limit_min: u32,
    pub user: u32,
}

/// A parsed trace: the jobs that can run, in file order, and how many
/// lines were jobs that cannot (run time or processors unknown or <= 0,
/// submit time unknown).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub max_procs: Option<u64>,
    pub max_nodes: Option<u64>,
    pub jobs: Vec<TraceJob>,
    pub skipped: usize,
}

/// A line that does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// `; Key: value` from a header line, when the value starts with an integer.
fn header_value(comment: &str, key: &str) -> Option<u64> {
    let rest = comment.trim_start().strip_prefix(key)?.trim_start().strip_prefix(':')?;
    rest.split_whitespace().next()?.parse().ok()
}

/// A field as a whole number: an integer, or a decimal rounded to the
/// nearest (only finite values of sane size).
fn number(text: &str, what: &str, line: usize) -> Result<i64, ParseError> {
    let bad = |m: String| ParseError { line, message: m };
    if let Ok(v) = text.parse::<i64>() {
        if (v as f64).abs() > MAX_TIME {
            return Err(bad(format!("{what} {text} is out of range")));
        }
        return Ok(v);
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() <= MAX_TIME => Ok(v.round() as i64),
        Ok(_) => Err(bad(format!("{what} {text} is out of range"))),
        Err(_) => Err(bad(format!("{what} is not a number: {text:?}"))),
    }
}

/// Minutes a time limit of `secs` seconds needs: rounded up, at least one.
pub fn limit_minutes(secs: i64) -> u32 {
    let m = (secs.max(1) as u64).div_ceil(60);
    u32::try_from(m).unwrap_or(u32::MAX)
}

/// Names of the 18 fields, for error messages.
const FIELDS: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
];

/// Read a trace from SWF text.
pub fn parse(text: &str) -> Result<Trace, ParseError> {
    parse_limited(text, None)
}

/// Read a trace from SWF text, at most its first `max_jobs` job lines (those
/// skipped included); the rest of the text is not read.
pub fn parse_limited(text: &str, max_jobs: Option<usize>) -> Result<Trace, ParseError> {
    let mut trace = Trace::default();
    let mut job_lines = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(comment) = l.strip_prefix(';') {
            if let Some(v) = header_value(comment, "MaxProcs") {
                trace.max_procs = Some(v);
            }
            if let Some(v) = header_value(comment, "MaxNodes") {
                trace.max_nodes = Some(v);
            }
            continue;
        }
        if max_jobs.is_some_and(|m| job_lines >= m) {
            break;
        }
        job_lines += 1;
        let fields: Vec<&str> = l.split_whitespace().collect();
        if fields.len() != FIELDS.len() {
            return Err(ParseError {
                line,
                message: format!("{} fields, an SWF job line has {}", fields.len(), FIELDS.len()),
            });
        }
        let mut v = [0i64; 18];
        for (k, f) in fields.iter().enumerate() {
            v[k] = number(f, FIELDS[k], line)?;
        }
        let (number_, submit, run, alloc, req_procs, req_time, user) = (v[0], v[1], v[3], v[4], v[7], v[8], v[11]);
        let procs = if req_procs > 0 { req_procs } else { alloc };
        if submit < 0 || run <= 0 || procs <= 0 {
            trace.skipped += 1;
            continue;
        }
        let limit_min = limit_minutes(if req_time > 0 { req_time } else { run });
        // a job running past its limit is killed at it
        let run = run.min(i64::from(limit_min) * 60);
        trace.jobs.push(TraceJob {
            number: number_,
            submit,
            run,
            // (a count past u32 is more than any cluster: skipped later)
            procs: u32::try_from(procs).unwrap_or(u32::MAX),
            limit_min,
            user: u32::try_from(user).unwrap_or(0),
        });
    }
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One SWF job line from the fields the simulator reads.
    fn line(n: i64, submit: i64, run: i64, alloc: i64, req: i64, req_time: i64, user: i64) -> String {
        format!("{n} {submit} -1 {run} {alloc} -1 -1 {req} {req_time} -1 1 {user} 1 -1 1 1 -1 -1")
    }

    #[test]
    fn header_comments_and_unknown_fields() {
        let text = [
            "; Version: 2.2".to_string(),
            ";  Computer: test".to_string(),
            "; MaxNodes: 16".to_string(),
            "; MaxProcs: 128   (all of them)".to_string(),
            "".to_string(),
            "; a comment in the middle".to_string(),
            line(1, 0, 100, 4, 8, 600, 3),
            // requested processors unknown: the allocated ones
            line(2, 10, 100, 4, -1, 600, 3),
            // requested time unknown: the run time, in whole minutes
            line(3, 20, 61, 2, 2, -1, 4),
            // ran past its request: cut at the limit (125 s -> 3 minutes)
            line(4, 30, 500, 2, 2, 125, 5),
            "   5   40  1  30.00  1  12.50  -1  1  59.6  -1  1  6  1  -1  1  1  -1  -1".to_string(),
        ]
        .join("\n");
        let t = parse(&text).unwrap();
        assert_eq!((t.max_procs, t.max_nodes, t.skipped), (Some(128), Some(16), 0));
        let got: Vec<(i64, i64, i64, u32, u32, u32)> =
            t.jobs.iter().map(|j| (j.number, j.submit, j.run, j.procs, j.limit_min, j.user)).collect();
        assert_eq!(
            got,
            [
                (1, 0, 100, 8, 10, 3),
                (2, 10, 100, 4, 10, 3),
                (3, 20, 61, 2, 2, 4),
                (4, 30, 180, 2, 3, 5),
                (5, 40, 30, 1, 1, 6)
            ]
        );
    }

    #[test]
    fn jobs_that_cannot_run_are_counted() {
        let text = [
            line(1, 0, 0, 4, 4, 60, 1),    // ran 0 s
            line(2, 0, -1, 4, 4, 60, 1),   // run time unknown
            line(3, 0, 10, -1, -1, 60, 1), // no processors at all
            line(4, -1, 10, 1, 1, 60, 1),  // submit time unknown
            line(5, 5, 10, 1, 1, 60, -1),  // fine (user unknown: 0)
        ]
        .join("\n");
        let t = parse(&text).unwrap();
        assert_eq!(t.skipped, 4);
        assert_eq!(t.jobs.len(), 1);
        assert_eq!((t.jobs[0].number, t.jobs[0].user), (5, 0));
        assert_eq!((t.max_procs, t.max_nodes), (None, None));
    }

    #[test]
    fn bad_lines_name_their_number() {
        let ok = line(1, 0, 10, 1, 1, 60, 1);
        let e = parse(&format!("; h\n{ok}\n1 2 3\n")).unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!(e.to_string(), "line 3: 3 fields, an SWF job line has 18");
        let e = parse(&format!("{ok}\n\n{}\n", ok.replacen(" 10 ", " ten ", 1))).unwrap_err();
        assert_eq!(e.to_string(), "line 3: run time is not a number: \"ten\"");
        let e = parse(&ok.replacen(" 60 ", " 1e300 ", 1)).unwrap_err();
        assert_eq!(e.to_string(), "line 1: requested time 1e300 is out of range");
        let e = parse(&ok.replacen(" 60 ", " NaN ", 1)).unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse(&ok.replacen(" 60 ", " 99999999999999999999 ", 1)).unwrap_err();
        assert_eq!(e.line, 1);
    }

    #[test]
    fn only_the_first_job_lines() {
        let text = [line(1, 0, 0, 1, 1, 60, 1), line(2, 1, 10, 1, 1, 60, 1), line(3, 2, 10, 1, 1, 60, 1)].join("\n");
        let t = parse_limited(&format!("{text}\nnot read"), Some(2)).unwrap();
        assert_eq!((t.skipped, t.jobs.len(), t.jobs[0].number), (1, 1, 2));
        assert_eq!(parse_limited(&text, Some(0)).unwrap().jobs.len(), 0);
        assert_eq!(parse_limited(&text, None).unwrap().jobs.len(), 2);
    }

    #[test]
    fn limits_in_whole_minutes() {
        assert_eq!(limit_minutes(1), 1);
        assert_eq!(limit_minutes(60), 1);
        assert_eq!(limit_minutes(61), 2);
        assert_eq!(limit_minutes(0), 1);
        assert_eq!(limit_minutes(i64::MAX), u32::MAX);
    }
}
