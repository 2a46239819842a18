//! What every command produces: text for stdout and stderr and an exit code.
//! Commands are written as functions returning an `Output` so that tests can
//! check exactly what a user would see.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Output {
    pub fn ok(stdout: impl Into<String>) -> Output {
        Output { stdout: stdout.into(), stderr: String::new(), code: 0 }
    }
    pub fn err(stderr: impl Into<String>, code: i32) -> Output {
        Output { stdout: String::new(), stderr: stderr.into(), code }
    }
}
