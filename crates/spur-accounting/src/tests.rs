use super::*;
use spur_core::acct::AcctStep;

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spur-acct-{}-{}", tag, std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn job(id: u32, uid: u32, submit: i64, end: i64, state: AcctState) -> AcctJob {
    AcctJob {
        job_id: id,
        user_id: uid,
        submit,
        eligible: submit,
        start: if end != 0 { submit + 1 } else { 0 },
        end,
        state,
        ..Default::default()
    }
}

#[test]
fn writes_are_idempotent_and_survive_reopening() {
    let d = tmp("reopen");
    {
        let s = Store::open(&d).unwrap();
        s.write(&[(3, vec![job(1, 10, 100, 0, AcctState::Running)])]).unwrap();
        s.write(&[(4, vec![job(1, 10, 100, 200, AcctState::Completed), job(2, 11, 150, 0, AcctState::Pending)])])
            .unwrap();
        // entry 3 again (a restart re-applies the log after the snapshot): passed over
        s.write(&[(3, vec![job(1, 10, 100, 0, AcctState::Running)])]).unwrap();
        assert_eq!(s.applied().unwrap(), 4);
    }
    let s = Store::open(&d).unwrap();
    assert_eq!(s.applied().unwrap(), 4);
    let all = s.query(&AcctQuery::default()).unwrap();
    assert_eq!(
        all.iter().map(|j| (j.job_id, j.state)).collect::<Vec<_>>(),
        vec![(1, AcctState::Completed), (2, AcctState::Pending)]
    );
    // one user's, with the window: job 1 ended at 200
    let q = AcctQuery { user_ids: vec![10], start: 201, ..Default::default() };
    assert!(s.query(&q).unwrap().is_empty());
    let q = AcctQuery { user_ids: vec![10], start: 150, end: 300, ..Default::default() };
    assert_eq!(s.query(&q).unwrap().len(), 1);
    // the window alone (by end time)
    let q = AcctQuery { start: 201, end: 300, ..Default::default() };
    assert_eq!(s.query(&q).unwrap().iter().map(|j| j.job_id).collect::<Vec<_>>(), vec![2]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_requeued_run_stays_requeued() {
    let d = tmp("requeue");
    let s = Store::open(&d).unwrap();
    let mut run1 = job(5, 10, 100, 0, AcctState::Running);
    run1.steps.push(AcctStep {
        step_id: spur_core::model::BATCH_STEP,
        state: AcctState::Running,
        ..Default::default()
    });
    s.write(&[(1, vec![run1])]).unwrap();
    // requeued: the job's submit time is the requeue's, its restart count one more
    let run2 = |end, state| AcctJob { restarts: 1, ..job(5, 10, 160, end, state) };
    s.write(&[(2, vec![run2(0, AcctState::Pending)])]).unwrap();
    s.write(&[(3, vec![run2(300, AcctState::Completed)])]).unwrap();
    let q = AcctQuery { jobs: vec![(5, None)], ..Default::default() };
    let newest = s.query(&q).unwrap();
    assert_eq!(newest.len(), 1);
    assert_eq!(newest[0].state, AcctState::Completed);
    let both = s.query(&AcctQuery { duplicates: true, ..q }).unwrap();
    assert_eq!(
        both.iter().map(|j| (j.submit, j.state, j.end)).collect::<Vec<_>>(),
        vec![(100, AcctState::Requeued, 160), (160, AcctState::Completed, 300)]
    );
    assert_eq!((both[0].steps[0].state, both[0].steps[0].exit_status), (AcctState::Cancelled, Some(15)));
    // requeued within the second it was submitted: still two runs
    s.write(&[(4, vec![job(6, 10, 500, 0, AcctState::Running)])]).unwrap();
    s.write(&[(5, vec![AcctJob { restarts: 1, ..job(6, 10, 500, 0, AcctState::Pending) }])]).unwrap();
    let q = AcctQuery { jobs: vec![(6, None)], duplicates: true, ..Default::default() };
    let runs = s.query(&q).unwrap();
    assert_eq!(
        runs.iter().map(|j| (j.restarts, j.state)).collect::<Vec<_>>(),
        vec![(0, AcctState::Requeued), (1, AcctState::Pending)]
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_snapshot_install_notes_what_to_copy_and_merge_fills_it() {
    let leader = Store::open(&tmp("leader")).unwrap();
    // job 1 ran and was purged from the state before the snapshot at 10
    leader.write(&[(2, vec![job(1, 10, 100, 0, AcctState::Running)])]).unwrap();
    leader.write(&[(5, vec![job(1, 10, 100, 200, AcctState::Completed)])]).unwrap();
    leader.write(&[(9, vec![job(2, 10, 300, 0, AcctState::Running)])]).unwrap();
    let member_dir = tmp("member");
    let member = Store::open(&member_dir).unwrap();
    member.write(&[(2, vec![job(1, 10, 100, 0, AcctState::Running)])]).unwrap();
    // the snapshot holds job 2 only
    member.install(10, &[job(2, 10, 300, 0, AcctState::Running)]).unwrap();
    assert_eq!(member.pending_sync().unwrap(), Some((2, 10)));
    assert_eq!(member.applied().unwrap(), 10);
    // pages of one
    let mut after = None;
    loop {
        let page = leader.changed_between(2, 10, after, 1).unwrap();
        let Some((i, last)) = page.last() else { break };
        after = Some((*i, (last.job_id, last.submit, last.restarts)));
        member.merge(&page).unwrap();
    }
    member.sync_done().unwrap();
    assert_eq!(member.pending_sync().unwrap(), None);
    let got = member.query(&AcctQuery::default()).unwrap();
    assert_eq!(
        got.iter().map(|j| (j.job_id, j.state)).collect::<Vec<_>>(),
        vec![(1, AcctState::Completed), (2, AcctState::Running)]
    );
    let _ = std::fs::remove_dir_all(member_dir);
}
