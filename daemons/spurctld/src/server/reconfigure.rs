//! `scontrol reconfigure`, as Slurm 23.11 and later do it: every daemon
//! reads slurm.conf again by starting afresh in its own process. A user's
//! request (root or SlurmUser: slurmctld's super user) reaches the leader,
//! which checks that slurm.conf reads, passes the request on to the other
//! controllers and to every agent, answers, and then starts again itself.
//! Each daemon's start goes through its SIGHUP handling (spur_daemon), so a
//! slurm.conf that stopped reading meanwhile is logged there and changes
//! nothing.

use super::{st, Service, R};
use crate::audit::Audit;
use crate::validate::{self, Action};
use spur_auth::{Identity, Kind};
use spur_core::errors::*;
use spur_proto::*;
use std::time::Duration;
use tonic::{Request, Response};

impl Service {
    pub(super) async fn reconfigure_rpc(&self, req: Request<ReconfigureRequest>) -> R<ReconfigureReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(spur_auth::grpc::identity(&req))?;
        audit.finish(self.reconfigure_as(id, req.into_inner()).await)
    }

    async fn reconfigure_as(&self, id: Identity, r: ReconfigureRequest) -> R<ReconfigureReply> {
        let reply = |code: i32| Ok(Response::new(ReconfigureReply { status: st(code) }));
        // the leader's, passed on: this controller starts again too
        if id.kind == Kind::Controller {
            if !r.forwarded {
                return reply(SLURM_ERROR_ANY);
            }
            spur_daemon::restart_soon();
            return reply(SUCCESS);
        }
        if let Err(e) = validate::authorize(&self.caller(&id), Action::Reconfigure, None) {
            return reply(e);
        }
        self.ctld.gate()?;
        if let Err(e) = spur_core::config::load(&self.ctld.conf.path) {
            tracing::error!("reconfigure refused: {}", e);
            return reply(SLURM_ERROR_ANY);
        }
        let mut calls = tokio::task::JoinSet::new();
        let peers: Vec<String> = {
            let m = self.ctld.raft.metrics().borrow().clone();
            m.membership_config
                .membership()
                .nodes()
                .filter(|(i, _)| **i != self.ctld.me)
                .map(|(_, n)| n.addr.clone())
                .collect()
        };
        for addr in peers {
            let c = self.ctld.clone();
            calls.spawn(async move {
                let ep = c.transport.endpoint(&addr).map_err(|e| format!("{}: {}", addr, e))?;
                let ch = ep
                    .connect_timeout(Duration::from_secs(2))
                    .connect()
                    .await
                    .map_err(|e| format!("{}: {}", addr, e))?;
                let mut cl = controller_client::ControllerClient::new(spur_auth::grpc::Signed::new(
                    ch,
                    c.signer(),
                    &addr,
                    c.legacy,
                ));
                let mut req = Request::new(ReconfigureRequest { forwarded: true });
                req.set_timeout(Duration::from_secs(5));
                cl.reconfigure(req).await.map(|_| ()).map_err(|e| format!("controller {}: {}", addr, e.message()))
            });
        }
        let nodes: Vec<String> = self.ctld.read().state.nodes().iter().map(|n| n.name.clone()).collect();
        for node in nodes {
            let c = self.ctld.clone();
            calls.spawn(async move {
                let mut a = c.agent(&node).await.ok_or_else(|| format!("{}: no address", node))?;
                let mut req = Request::new(ReconfigureRequest { forwarded: true });
                req.set_timeout(Duration::from_secs(5));
                a.reconfigure(req).await.map(|_| ()).map_err(|e| format!("node {}: {}", node, e.message()))
            });
        }
        let mut missed = 0;
        while let Some(r) = calls.join_next().await {
            if let Ok(Err(e)) = r {
                // (a node that is down reads slurm.conf when it starts)
                tracing::info!("reconfigure: not reached: {}", e);
                missed += 1;
            }
        }
        tracing::info!("reconfigure: slurm.conf read again everywhere reached ({} not reached)", missed);
        spur_daemon::restart_soon();
        reply(SUCCESS)
    }
}
