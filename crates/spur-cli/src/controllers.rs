//! `spur controller list|add|remove`: the Raft members and their roles, and
//! membership changes while the cluster runs (Spur's own verb; `scontrol
//! ping` is spur-cli-control's).

const USAGE: &str =
    "Usage: spur controller list\n       spur controller add ID HOST:PORT\n       spur controller remove ID\n";

/// `spur controller ...`: list the Raft members, or change them without downtime.
pub fn main(args: &[String]) -> i32 {
    // (no runtime of its own: the blocking client's)
    let client = match spur_client::blocking::Client::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("spur controller: {}", e);
            return 1;
        }
    };
    use spur_core::request::MembershipChange;
    let change = match args.iter().map(|s| s.as_str()).collect::<Vec<_>>().as_slice() {
        ["list"] | [] => MembershipChange::List,
        ["add", id, addr] => MembershipChange::Add { id: id.parse().unwrap_or(0), addr: addr.to_string() },
        ["remove", id] => MembershipChange::Remove { id: id.parse().unwrap_or(0) },
        _ => {
            eprint!("{}", USAGE);
            return 1;
        }
    };
    if matches!(change, MembershipChange::Add { id: 0, .. } | MembershipChange::Remove { id: 0 }) {
        eprint!("spur controller: ID must be a positive number\n{}", USAGE);
        return 1;
    }
    if let MembershipChange::Add { addr, .. } = &change {
        if addr.is_empty() {
            eprint!("{}", USAGE);
            return 1;
        }
    }
    match client.membership(&change) {
        Ok(r) => {
            println!("{:<4} {:<24} {:<8} ROLE", "ID", "ADDRESS", "VOTER");
            for m in r.members {
                println!(
                    "{:<4} {:<24} {:<8} {}",
                    m.id,
                    m.addr,
                    if m.voter { "yes" } else { "no" },
                    if m.leader {
                        "leader"
                    } else if m.voter {
                        "follower"
                    } else {
                        "learner"
                    }
                );
            }
            0
        }
        Err(e) => {
            eprintln!("spur controller: error: {}", e);
            1
        }
    }
}
