//! scontrol's command line and environment (`spur_cli_control::scontrol::parse`,
//! with its `key=value` update grammars and reservations; words split on NUL,
//! `\x01NAME=VALUE` an environment entry), what it answers itself or shows
//! of a small cluster, and the request it sends as the controller reads it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_cli_control::scontrol::{self, ScontrolCmd, ShowWhat};
use spur_core::request::JobControl;
use spur_fuzz::controller;
use spur_proto::convert;

fn job_control(job_ids: &[String], op: JobControl) {
    controller::job_control(convert::job_control_request(job_ids, &op))
}

fuzz_target!(|data: &[u8]| {
    let (args, env) = spur_fuzz::command_line(data);
    let Ok(cmd) = scontrol::parse(&args, &env) else { return };
    let view = spur_fuzz::view();
    match &cmd {
        // (reads commands from stdin)
        ScontrolCmd::Interactive { .. } => {}
        // (expanding a list of millions of hosts is the hostlist target's)
        ScontrolCmd::Show { what: ShowWhat::Hostnames, id: Some(e), .. }
            if spur_grammar::hostlist::count(e).is_ok_and(|c| c > 10_000) => {}
        ScontrolCmd::Show { .. } => {
            let _ = scontrol::render_show(&cmd, &view, view.now, &scontrol::ShowConf::default());
        }
        ScontrolCmd::Hold { job_ids, user, .. } => job_control(job_ids, JobControl::Hold { user: *user }),
        ScontrolCmd::Release { job_ids, .. } => job_control(job_ids, JobControl::Release),
        ScontrolCmd::Requeue { job_ids, hold, special_exit, .. } => {
            job_control(job_ids, JobControl::Requeue { hold: *hold, special_exit: *special_exit })
        }
        ScontrolCmd::Suspend { job_ids, .. } => job_control(job_ids, JobControl::Suspend),
        ScontrolCmd::Resume { job_ids, .. } => job_control(job_ids, JobControl::Resume),
        ScontrolCmd::Top { job_ids, .. } => job_control(job_ids, JobControl::Top),
        ScontrolCmd::UpdateJob { job_ids, update, .. } => {
            job_control(job_ids, JobControl::Update(Box::new(update.clone())))
        }
        ScontrolCmd::UpdateNode { update, .. } => controller::node_control(update.into()),
        ScontrolCmd::UpdatePartition { update, .. } => controller::node_control(update.into()),
        ScontrolCmd::Reservation { req, .. } => controller::reservation(req.into()),
        _ => {
            let _ = scontrol::run_local(&cmd);
        }
    }
});
