//! TLS on every channel (issue 9, point 1): with `TLSType` and
//! `TLSParameters` naming certificate files (made here with openssl: a CA,
//! a controller and an agent certificate for 127.0.0.1-3), a job is
//! submitted by a user, launched on two agents and reported back, and the
//! three controllers replicate, all over TLS; a caller speaking plain gRPC gets no answer; a private key others
//! can read is refused. One cluster for the file.

use slurm_tests::{Cluster, TEST_USER};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn sh(dir: &Path, script: &str) {
    let o = Command::new("bash").arg("-ec").arg(script).current_dir(dir).output().expect("bash");
    assert!(o.status.success(), "{}\n{}", script, String::from_utf8_lossy(&o.stderr));
}

/// A CA and, signed by it, `name`_cert.pem / `name`_cert_key.pem for 127.0.0.1.
fn certificates(dir: &Path) {
    sh(
        dir,
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
             -out ca_cert.pem -days 2 -subj /CN=spur-test-ca 2>/dev/null",
    );
    for name in ["ctld", "slurmd"] {
        sh(
            dir,
            &format!(
                "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout {n}_cert_key.pem \
                 -out {n}.csr -subj /CN={n} 2>/dev/null
                 printf 'subjectAltName=IP:127.0.0.1,IP:127.0.0.2,IP:127.0.0.3,DNS:localhost\\n' > {n}.ext
                 openssl x509 -req -in {n}.csr -CA ca_cert.pem -CAkey ca.key -CAcreateserial -out {n}_cert.pem \
                 -days 2 -extfile {n}.ext 2>/dev/null
                 chmod 600 {n}_cert_key.pem; chmod 644 ca_cert.pem",
                n = name
            ),
        );
    }
}

#[test]
fn every_channel_speaks_tls_when_slurm_conf_asks() {
    let certs = std::env::temp_dir().join(format!("spur-tls-{}", std::process::id()));
    std::fs::create_dir_all(&certs).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&certs, std::fs::Permissions::from_mode(0o755)).unwrap();
    certificates(&certs);
    let c = certs.display();
    let extra = certs.join("extra.conf");
    std::fs::write(
        &extra,
        format!(
            "TLSType=tls/s2n\nTLSParameters=ca_cert_file={c}/ca_cert.pem,ctld_cert_file={c}/ctld_cert.pem,\
             ctld_cert_key_file={c}/ctld_cert_key.pem,slurmd_cert_file={c}/slurmd_cert.pem,\
             slurmd_cert_key_file={c}/slurmd_cert_key.pem\n"
        ),
    )
    .unwrap();
    let cl = Cluster::up("tls", 2, &["--controllers", "3", "--extra-conf", extra.to_str().unwrap()]);

    // a user's job, launched on an agent and reported back, over TLS
    let o = cl.run_as(TEST_USER, "sbatch", &["--parsable", "-N2", "--wrap", "echo over-tls"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let id = o.stdout.trim().to_string();
    cl.wait_state(&id, "COMPLETED", Duration::from_secs(60));
    assert_eq!(
        cl.run_as(TEST_USER, "squeue", &["-h", "-t", "all", "-j", &id, "-o", "%u %T"]).stdout,
        format!("{} COMPLETED\n", TEST_USER)
    );
    // three controllers, Raft between them over TLS: each answers, and one
    // leads (a member that could not reach the others would never join)
    let o = cl.run("scontrol", &["ping"]);
    assert_eq!(o.stdout.matches("is UP").count(), 3, "{}", o.stdout);

    // plain gRPC to the controller and to an agent: no answer
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let ch = tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{}", cl.ctld_port()))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let e = spur_proto::controller_client::ControllerClient::new(ch)
            .ping(spur_proto::PingRequest {})
            .await
            .unwrap_err();
        // (the TLS server takes the plain HTTP/2 preface for a bad record: a
        // transport error, no gRPC answer)
        assert!(matches!(e.code(), tonic::Code::Unavailable | tonic::Code::Internal | tonic::Code::Unknown), "{:?}", e);
        assert!(e.metadata().get("grpc-status").is_none(), "{:?}", e);
    });

    // a private key others may read: the controller does not start
    std::fs::set_permissions(certs.join("ctld_cert_key.pem"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let o = Command::new(slurm_tests::bin_dir().join("spurctld"))
        .args(["-D", "-f"])
        .arg(&cl.conf)
        .args(["--id", "1", "--state-dir", certs.join("state").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("TLS private key is insecure: '{}/ctld_cert_key.pem' mode=0644", c)), "{}", err);
    drop(cl);
    let _ = std::fs::remove_dir_all(&certs);
}
