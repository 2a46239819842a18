//! User and group names from the system databases (getpwuid_r and friends).

use std::ffi::CString;

pub fn user_name(uid: u32) -> Option<String> {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)).ok().flatten().map(|u| u.name)
}

pub fn group_name(gid: u32) -> Option<String> {
    nix::unistd::Group::from_gid(nix::unistd::Gid::from_raw(gid)).ok().flatten().map(|g| g.name)
}

pub fn uid_of(name: &str) -> Option<u32> {
    if let Ok(n) = name.parse::<u32>() {
        return Some(n);
    }
    nix::unistd::User::from_name(name).ok().flatten().map(|u| u.uid.as_raw())
}

pub fn gid_of(name: &str) -> Option<u32> {
    if let Ok(n) = name.parse::<u32>() {
        return Some(n);
    }
    nix::unistd::Group::from_name(name).ok().flatten().map(|g| g.gid.as_raw())
}

/// Every group `uid` belongs to (primary first), as getgrouplist reports.
pub fn groups_of(uid: u32) -> Vec<u32> {
    let user = match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)).ok().flatten() {
        Some(u) => u,
        None => return vec![],
    };
    let cname = match CString::new(user.name.clone()) {
        Ok(c) => c,
        Err(_) => return vec![user.gid.as_raw()],
    };
    match nix::unistd::getgrouplist(&cname, user.gid) {
        Ok(v) => v.into_iter().map(|g| g.as_raw()).collect(),
        Err(_) => vec![user.gid.as_raw()],
    }
}

/// This machine's short host name.
pub fn short_hostname() -> String {
    let h = nix::unistd::gethostname().ok().and_then(|h| h.into_string().ok()).unwrap_or_else(|| "localhost".into());
    h.split('.').next().unwrap_or("localhost").to_string()
}
