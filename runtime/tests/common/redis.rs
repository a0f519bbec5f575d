//! A real `redis-server` (Debian's package; CI installs it) for the tests of the `redis`
//! feature.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A redis-server of the test's own, on a free 127.0.0.1 port, which can be stopped and
/// started again on that port.
pub struct Redis {
    pub port: u16,
    child: Option<Child>,
    workdir: tempfile::TempDir,
}

impl Redis {
    pub fn start() -> Self {
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let dir = tempfile::tempdir().unwrap();
        let mut redis = Self {
            port,
            child: None,
            workdir: dir,
        };
        redis.spawn();
        redis
    }

    pub fn spawn(&mut self) {
        self.spawn_with(&["--port", &self.port.to_string()]);
    }

    /// A redis-server that speaks only TLS on its port, with a certificate for 127.0.0.1 from
    /// a CA made here (the openssl CLI): the CA's PEM.
    pub fn start_tls() -> (Self, Vec<u8>) {
        let mut redis = Self::start_stopped();
        let dir = redis.workdir.path().to_owned();
        let openssl = |args: &[&str]| {
            let status = Command::new("openssl")
                .args(args)
                .current_dir(&dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("the openssl CLI on PATH");
            assert!(status.success(), "openssl {args:?}");
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ];
        openssl(
            &[
                &["req", "-x509"][..],
                &ec,
                &[
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.pem",
                    "-days",
                    "1",
                    "-subj",
                    "/CN=test-ca",
                ],
            ]
            .concat(),
        );
        openssl(
            &[
                &["req"][..],
                &ec,
                &[
                    "-keyout",
                    "server.key",
                    "-out",
                    "server.csr",
                    "-subj",
                    "/CN=127.0.0.1",
                ],
            ]
            .concat(),
        );
        std::fs::write(dir.join("ext.cnf"), "subjectAltName=IP:127.0.0.1\n").unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "1",
            "-extfile",
            "ext.cnf",
        ]);
        let port = redis.port.to_string();
        redis.spawn_with(&[
            "--port",
            "0",
            "--tls-port",
            &port,
            "--tls-cert-file",
            "server.pem",
            "--tls-key-file",
            "server.key",
            "--tls-ca-cert-file",
            "ca.pem",
            "--tls-auth-clients",
            "no",
        ]);
        (redis, std::fs::read(dir.join("ca.pem")).unwrap())
    }

    pub fn start_stopped() -> Self {
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        Self {
            port,
            child: None,
            workdir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn spawn_with(&mut self, ports: &[&str]) {
        let child = Command::new("redis-server")
            .args(ports)
            .args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.workdir.path())
            .current_dir(self.workdir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server on PATH (apt-get install redis-server)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The directory it runs in (its certificates, for a TLS one).
    pub fn dir(&self) -> &std::path::Path {
        self.workdir.path()
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}
