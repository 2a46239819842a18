//! `scontrol ping`: the controllers and their Raft roles.
//!
//! `scontrol ping` prints Slurm's lines, one per SlurmctldHost in slurm.conf
//! order. Slurm names the roles by position (the first line is the primary);
//! with Raft the role moves, so Spur calls the current leader `primary` and
//! every other member `backup` (`backup1`, `backup2`, ... in slurm.conf order
//! when there are more than two), as Slurm names them when its primary is listed first.

use spur_cli_base::Output;

/// Ask every controller and print Slurm's lines (exit 0 when one answers).
pub async fn ping(c: &spur_client::Client) -> Output {
    let answers = c.ping_each().await;
    let n = answers.len();
    let mut out = String::new();
    let mut code = 1;
    let mut down = false;
    let mut backups = 0;
    for (name, reply) in answers.iter() {
        let up = reply.is_some();
        if up {
            code = 0;
        } else {
            down = true;
        }
        let leader = reply.as_ref().map(|r| r.role == "leader" || r.role == "primary").unwrap_or(false);
        let mode = if n == 1 || leader {
            "primary".to_string()
        } else if n == 2 {
            "backup".to_string()
        } else {
            backups += 1;
            format!("backup{}", backups)
        };
        out.push_str(&format!("Slurmctld({}) at {} is {}\n", mode, name, if up { "UP" } else { "DOWN" }));
    }
    if down && nix::unistd::getuid().is_root() {
        out.push_str("*****************************************\n");
        out.push_str("** RESTORE SLURMCTLD DAEMON TO SERVICE **\n");
        out.push_str("*****************************************\n");
    }
    Output { stdout: out, stderr: String::new(), code }
}
