//! An embedder or LLM that is a user's program, run by `sh -c` once per call.
//!
//! - [`CommandEmbedder`]: JSON on stdin, `{"texts": ["...", ...]}`; on stdout a JSON array of
//!   vectors, `[[0.1, ...], ...]`, or an object with such an array as `vectors` or
//!   `embeddings`.
//! - [`CommandLlm`]: the prompt as text on stdin; the answer is the whole of stdout. An
//!   answer that is a JSON object with a string `text`, `answer` or `content` is unwrapped.
//!
//! A program that cannot start, exits non-zero or prints malformed output fails the call
//! with a message naming the command and quoting the end of its stderr. A program that runs
//! longer than its timeout ([`DEFAULT_TIMEOUT`] unless set), or prints more than
//! [`MAX_OUTPUT_BYTES`] on stdout, is killed, with every process it started (it runs in a
//! process group of its own), and the call fails saying so. Of stderr only the end is kept.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::plugins::{Embedder, Llm};

/// The most stderr quoted in an error, in bytes.
const STDERR_TAIL: usize = 400;

/// The most a host command may print on stdout, in bytes (a vector answer for a batch of 64
/// texts of 4,096 dimensions is about 6 MB): a flooding program once took 4 GB in 5 s.
pub const MAX_OUTPUT_BYTES: usize = 64 << 20;
/// The end of stderr kept while a program runs, in bytes.
const STDERR_KEPT: usize = 64 << 10;

/// How long a host command may run by default: long enough for a local model, short enough
/// that a hung one does not hold the store forever.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `command` with `sh -c`, feeding `input`; its stdout, or an error message. Kills it
/// (and what it started) after `timeout`.
pub fn run(command: &str, input: &[u8], timeout: Duration) -> Result<Vec<u8>, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Write and read from threads: a program may print before it has read all its input.
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // A program that exits without reading its input is not an error by itself.
        let _ = stdin.write_all(&input);
    });
    let flooded = Arc::new(AtomicBool::new(false));
    let stdout = {
        let mut pipe = child.stdout.take().expect("stdout is piped");
        let flooded = flooded.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            // One byte over the cap tells a full answer from a flood; then the pipe closes.
            let limit = MAX_OUTPUT_BYTES as u64 + 1;
            let _ = (&mut pipe).take(limit).read_to_end(&mut buf);
            if buf.len() > MAX_OUTPUT_BYTES {
                flooded.store(true, Ordering::SeqCst);
            }
            buf
        })
    };
    let stderr = {
        let mut pipe = child.stderr.take().expect("stderr is piped");
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                kept.extend_from_slice(&chunk[..n]);
                if kept.len() > 2 * STDERR_KEPT {
                    kept.drain(..kept.len() - STDERR_KEPT);
                }
            }
            kept
        })
    };
    let started = Instant::now();
    let status = loop {
        if flooded.load(Ordering::SeqCst) {
            stop(&mut child);
            let _ = writer.join();
            return Err(format!(
                "`{command}` printed more than {} MiB and was stopped",
                MAX_OUTPUT_BYTES >> 20
            ));
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                stop(&mut child);
                let _ = writer.join();
                return Err(format!(
                    "`{command}` timed out after {:.0} s and was stopped",
                    timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("`{command}` failed: {e}")),
        }
    };
    let _ = writer.join();
    let stdout = stdout.join().unwrap_or_default();
    // The flood may have ended the program (its pipe closed) before the loop saw the flag.
    if flooded.load(Ordering::SeqCst) {
        return Err(format!(
            "`{command}` printed more than {} MiB and was stopped",
            MAX_OUTPUT_BYTES >> 20
        ));
    }
    let out = std::process::Output {
        status,
        stdout,
        stderr: stderr.join().unwrap_or_default(),
    };
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stderr = stderr.trim();
        let start = stderr.len().saturating_sub(STDERR_TAIL);
        let start = (start..=stderr.len())
            .find(|&i| stderr.is_char_boundary(i))
            .unwrap_or(0);
        return Err(format!(
            "`{command}` exited with {}{}{}",
            out.status,
            if stderr.is_empty() { "" } else { ": " },
            &stderr[start..]
        ));
    }
    Ok(out.stdout)
}

/// Kills `child` and every process it started: `sh` and anything it started hold the pipes.
/// The group id is the child's pid (`process_group(0)`). `--` keeps `-<pgid>` from being read
/// as an option: `kill -KILL -1…` can mean "every process".
fn stop(child: &mut Child) {
    let pgid = child.id();
    if pgid > 1 {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{pgid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// An [`Embedder`] that runs a command per batch of texts.
#[derive(Debug, Clone)]
pub struct CommandEmbedder {
    /// The shell command line.
    pub command: String,
    /// How long one call may run.
    pub timeout: Duration,
}

impl CommandEmbedder {
    /// An embedder running `command` with `sh -c`, with the [`DEFAULT_TIMEOUT`].
    pub fn new(command: impl Into<String>) -> Self {
        CommandEmbedder {
            command: command.into(),
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The same embedder with another timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl Embedder for CommandEmbedder {
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let input = serde_json::to_vec(&serde_json::json!({ "texts": texts }))
            .map_err(|e| e.to_string())?;
        let out = run(&self.command, &input, self.timeout)?;
        parse_vectors(&out).map_err(|e| format!("`{}` printed {e}", self.command))
    }
}

/// Vectors from an embedder's stdout: an array, or an object holding one.
fn parse_vectors(out: &[u8]) -> Result<Vec<Vec<f32>>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(out).map_err(|e| format!("no JSON ({e})"))?;
    let array = match &value {
        serde_json::Value::Object(o) => o.get("vectors").or_else(|| o.get("embeddings")),
        other => Some(other),
    };
    array
        .and_then(|a| serde_json::from_value::<Vec<Vec<f32>>>(a.clone()).ok())
        .ok_or_else(|| "JSON that is not an array of vectors".to_string())
}

/// An [`Llm`] that runs a command per prompt.
#[derive(Debug, Clone)]
pub struct CommandLlm {
    /// The shell command line.
    pub command: String,
    /// How long one call may run.
    pub timeout: Duration,
}

impl CommandLlm {
    /// An LLM running `command` with `sh -c`, with the [`DEFAULT_TIMEOUT`].
    pub fn new(command: impl Into<String>) -> Self {
        CommandLlm {
            command: command.into(),
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The same LLM with another timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl Llm for CommandLlm {
    fn complete(&mut self, prompt: &str) -> Result<String, String> {
        let out = run(&self.command, prompt.as_bytes(), self.timeout)?;
        let text = String::from_utf8(out)
            .map_err(|_| format!("`{}` printed text that is not UTF-8", self.command))?;
        Ok(unwrap_answer(text))
    }
}

/// The answer inside a JSON object `{"text"|"answer"|"content": "..."}`, else the text itself.
fn unwrap_answer(text: String) -> String {
    if text.trim_start().starts_with('{') {
        if let Ok(serde_json::Value::Object(o)) = serde_json::from_str(&text) {
            for key in ["text", "answer", "content"] {
                if let Some(serde_json::Value::String(s)) = o.get(key) {
                    return s.clone();
                }
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_vectors_in_both_shapes() {
        assert_eq!(parse_vectors(b"[[1, 2], [3, 4.5]]").unwrap()[1], [3.0, 4.5]);
        assert_eq!(
            parse_vectors(br#"{"vectors": [[1]]}"#).unwrap(),
            [vec![1.0]]
        );
        assert!(parse_vectors(b"nope").is_err());
        assert!(parse_vectors(br#"{"v": 1}"#).is_err());
    }

    #[test]
    fn unwraps_json_answers_only() {
        assert_eq!(
            unwrap_answer(r###"{"text": "## Summary"}"###.into()),
            "## Summary"
        );
        assert_eq!(unwrap_answer("## Summary\nx".into()), "## Summary\nx");
    }

    #[test]
    fn runs_commands_and_reports_failures() {
        let t = DEFAULT_TIMEOUT;
        assert_eq!(run("cat", b"hi", t).unwrap(), b"hi");
        let err = run("echo oops >&2; exit 3", b"", t).unwrap_err();
        assert!(err.contains("oops") && err.contains('3'), "{err}");
        let mut llm = CommandLlm::new("tr a-z A-Z");
        assert_eq!(llm.complete("abc").unwrap(), "ABC");
        let mut emb = CommandEmbedder::new(r#"echo '[[1,0],[0,1]]'"#);
        assert_eq!(emb.embed(&["a".into(), "b".into()]).unwrap().len(), 2);
    }

    #[test]
    fn a_hung_command_and_what_it_started_are_stopped_at_the_timeout() {
        let started = Instant::now();
        // `sleep` runs as a child of `sh`, holding its stdout: both must go.
        let mut llm =
            CommandLlm::new("sleep 30; echo late").with_timeout(Duration::from_millis(300));
        let err = llm.complete("hi").unwrap_err();
        assert!(err.contains("timed out"), "{err}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the call returned at the timeout, not when the program ended"
        );
        let mut emb = CommandEmbedder::new("sleep 30").with_timeout(Duration::from_millis(200));
        assert!(emb.embed(&["a".into()]).unwrap_err().contains("timed out"));
    }

    #[test]
    fn a_flooding_command_is_stopped_at_the_output_cap() {
        // `yes` prints forever: the call fails saying so (not at the timeout), and no more
        // than the cap is kept.
        let mut emb = CommandEmbedder::new("yes").with_timeout(Duration::from_secs(600));
        let err = emb.embed(&["a".into()]).unwrap_err();
        assert!(err.contains("printed more than 64 MiB"), "{err}");
        let mut llm = CommandLlm::new("cat /dev/zero").with_timeout(Duration::from_secs(600));
        assert!(llm.complete("x").unwrap_err().contains("printed more than"));
        // A flood on stderr is drained and cut, and the call reports its end.
        let err = run(
            "yes oops | head -c 100000000 >&2; exit 4",
            b"",
            DEFAULT_TIMEOUT,
        )
        .unwrap_err();
        assert!(err.contains("oops") && err.len() < 1000, "{}", err.len());
    }
}
