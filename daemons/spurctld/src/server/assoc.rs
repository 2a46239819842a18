//! sacctmgr's account and user RPC: `Assoc` adds, modifies or deletes
//! accounts, users and their associations. The leader resolves the change
//! against the records as they stand (`spur_core::assoc::plan`, which
//! sacctmgr has already run against the records it read, to print its
//! echo and errors) and commits what it puts and deletes.

use super::{st, Service, R};
use crate::audit::Audit;
use crate::validate::{self, Action};
use spur_auth::Identity;
use spur_core::assoc::{self, Change, Entity, Op, Refusal};
use spur_core::errors::*;
use spur_proto::*;
use spur_state::Command;
use tonic::{Request, Response};

/// The change a request asks for.
pub(crate) fn change_of(r: &AssocRequest) -> Result<Change, i32> {
    let op = match assoc_request::Op::try_from(r.op).map_err(|_| SLURM_ERROR_ANY)? {
        assoc_request::Op::Add => Op::Add,
        assoc_request::Op::Modify => Op::Modify,
        assoc_request::Op::Delete => Op::Delete,
    };
    let entity = match assoc_request::Entity::try_from(r.entity).map_err(|_| SLURM_ERROR_ANY)? {
        assoc_request::Entity::Account => Entity::Account,
        assoc_request::Entity::User => Entity::User,
    };
    let long = |v: &[String]| v.len() > 10_000 || v.iter().any(|n| n.len() > 1024);
    if long(&r.names) || long(&r.accounts) || r.settings.len() > 64 {
        return Err(ESLURM_INVALID_ACCOUNT);
    }
    Ok(Change {
        op,
        entity,
        names: r.names.clone(),
        accounts: r.accounts.clone(),
        settings: r.settings.iter().map(|s| (s.key.clone(), s.value.clone())).collect(),
    })
}

/// The Slurm error of a refusal.
fn code_of(r: &Refusal) -> i32 {
    match r {
        Refusal::Nothing => SLURM_NO_CHANGE_IN_DATA,
        Refusal::Unsupported(_) => ESLURM_NOT_SUPPORTED,
        _ => ESLURM_INVALID_ACCOUNT,
    }
}

/// A user changing their own default account, which slurmdbd lets anyone
/// do (measured: fairshare-22.05.md D22).
fn own_default(change: &Change, user: Option<&str>) -> bool {
    change.entity == Entity::User
        && change.op == Op::Modify
        && change.accounts.is_empty()
        && user.is_some_and(|u| change.names.len() == 1 && change.names[0] == u)
        && !change.settings.is_empty()
        && change.settings.iter().all(|(k, _)| spur_grammar::keyword::abbrev(k, "defaultaccount", 3))
}

impl Service {
    pub(super) async fn assoc_as(&self, id: Identity, req: Request<AssocRequest>) -> R<AssocReply> {
        let refused = |code| Ok(Response::new(AssocReply { status: st(code), names: vec![] }));
        let caller = self.caller(&id);
        if !self.ctld.conf.accounting_enabled() {
            return refused(ESLURM_DB_CONNECTION);
        }
        let change = match change_of(req.get_ref()) {
            Ok(c) => c,
            Err(code) => return refused(code),
        };
        let me = spur_auth::users::user_name(id.uid);
        if !own_default(&change, me.as_deref()) {
            if let Err(code) = validate::authorize(&caller, Action::ManageAccounts, None) {
                return refused(code);
            }
        }
        let planned = {
            let g = self.ctld.read();
            let st = &g.state;
            if st.write_format_version() < spur_state::ASSOC_VERSION {
                Err(ESLURM_NOT_SUPPORTED)
            } else {
                match assoc::plan(&st.assocs(), &change, &st.qos()) {
                    Err(r) => Err(code_of(&r)),
                    // (limits are written from format version 13)
                    Ok(p)
                        if st.write_format_version() < spur_state::ASSOC_LIMITS_VERSION
                            && (p.accounts.iter().any(|a| !a.limits.is_empty())
                                || p.links.iter().any(|l| !l.limits.is_empty())) =>
                    {
                        Err(ESLURM_NOT_SUPPORTED)
                    }
                    // an association with jobs not yet finished stays
                    // (slurmdbd: `Job(s) active, cancel job(s) before remove`)
                    Ok(p)
                        if st.queue_ids().iter().filter_map(|i| st.job(*i)).any(|j| {
                            let acct = j.desc.account.as_deref().unwrap_or_default();
                            p.del_accounts.iter().any(|a| a.eq_ignore_ascii_case(acct))
                                || p.del_users.contains(&j.user_name)
                                || p.del_links.iter().any(|(u, a)| *u == j.user_name && a.eq_ignore_ascii_case(acct))
                        }) =>
                    {
                        Err(ESLURM_JOBS_RUNNING_ON_ASSOC)
                    }
                    Ok(p) => Ok(p),
                }
            }
        };
        let p = match planned {
            Ok(p) => p,
            Err(code) => return refused(code),
        };
        let mut cmds = vec![];
        if !p.accounts.is_empty() || !p.users.is_empty() || !p.links.is_empty() {
            cmds.push(Command::AssocPut {
                accounts: p.accounts.clone(),
                users: p.users.clone(),
                links: p.links.clone(),
            });
        }
        if !p.del_accounts.is_empty() || !p.del_users.is_empty() || !p.del_links.is_empty() {
            cmds.push(Command::AssocDelete {
                accounts: p.del_accounts.clone(),
                users: p.del_users.clone(),
                links: p.del_links.clone(),
            });
        }
        for r in self.ctld.commit(cmds).await? {
            if let Err(code) = r {
                return refused(code);
            }
        }
        self.ctld.fair_share_changed();
        self.ctld.sched_wake.notify_one();
        Ok(Response::new(AssocReply { status: st(0), names: p.names() }))
    }

    pub(super) async fn assoc_rpc(&self, req: Request<AssocRequest>) -> R<AssocReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.assoc_as(id, req).await)
    }
}
