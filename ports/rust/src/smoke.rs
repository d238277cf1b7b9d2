//! The smoke run of the Rust port: the core flow through the crate OpenAPI Generator's `rust`
//! generator makes from spec/openapi.yaml (generated/, at build time, never edited), against the
//! emulator or any server of the spec:
//!
//!     TOGETHER_BASE_URL=http://127.0.0.1:8765 TOGETHER_API_KEY=test-key \
//!         cargo run --bin smoke -- ../../spec/examples/valid/forward_backward.cross_entropy.json
//!
//! Resources, a session, a forward-backward with an Idempotency-Key (sent again with the same
//! key when the connection drops), polled to COMPLETED through any other status, known or not,
//! then the same key again, which must return the same operation. One JSON line of what it saw;
//! exit code 1 when the flow breaks.
use std::io::Read;
use std::{env, fs, process, thread, time::Duration};

use rlapi::apis::{configuration::Configuration, rl_api, Error};
use rlapi::models;

const COMPLETED: &str = "TRAINING_OPERATION_STATUS_COMPLETED";
const FAILED: &str = "TRAINING_OPERATION_STATUS_FAILED";

fn main() {
    let body_file = env::args().nth(1).unwrap_or_else(|| fail("usage: smoke FORWARD_BACKWARD_BODY.json"));
    let mut config = Configuration::new();
    // TOGETHER_BASE_URL is a server root: the path of the spec's server URL goes after it.
    let declared = url::Url::parse(&config.base_path).unwrap_or_else(|e| fail(&e.to_string()));
    let root = env::var("TOGETHER_BASE_URL").unwrap_or_default();
    config.base_path = format!("{}{}", root.trim_end_matches('/'), declared.path().trim_end_matches('/'));
    config.bearer_access_token = env::var("TOGETHER_API_KEY").ok();

    let resources = rl_api::create_model_resources(&config, models::ModelResourcesCreate::new("emulator/tiny-1k".into()))
        .unwrap_or_else(|e| fail(&format!("createModelResources: {e}")));
    let session = rl_api::start_training_session(&config, models::SessionCreate::new(resources.id))
        .unwrap_or_else(|e| fail(&format!("startTrainingSession: {e}")));
    let text = fs::read_to_string(&body_file).unwrap_or_else(|e| fail(&e.to_string()));
    let body: models::ForwardBackwardBody = serde_json::from_str(&text).unwrap_or_else(|e| fail(&format!("the body: {e}")));

    let key = new_key();
    let attempts = std::cell::Cell::new(0);
    let submit = || loop {
        attempts.set(attempts.get() + 1);
        match rl_api::forward_backward(&config, &session.id, &key, body.clone()) {
            Ok(operation) => return operation,
            // No answer (the connection dropped): the same key again.
            Err(Error::Reqwest(_)) if attempts.get() < 5 => thread::sleep(Duration::from_millis(100)),
            Err(e) => fail(&format!("forwardBackward: {e}")),
        }
    };
    let mut operation = submit();
    let submit_attempts = attempts.get();
    let mut statuses: Vec<String> = Vec::new();
    while statuses.len() < 500 {
        let status = status_text(&operation.status);
        statuses.push(status.clone());
        if status == COMPLETED || status == FAILED {
            break;
        }
        thread::sleep(Duration::from_millis(20)); // any other status, known or not: not done yet
        operation = rl_api::get_forward_backward_operation(&config, &session.id, &operation.id)
            .unwrap_or_else(|e| fail(&format!("getForwardBackwardOperation: {e}")));
    }
    let replayed = submit();
    let report = serde_json::json!({
        "port": "rust",
        "operation_id": operation.id,
        "replayed_operation_id": replayed.id,
        "submit_attempts": submit_attempts,
        "statuses": statuses,
        "loss": operation.output.as_ref().map(|output| output.loss),
    });
    println!("{report}");
    let held = statuses.last().map(String::as_str) == Some(COMPLETED) && replayed.id == operation.id;
    process::exit(if held { 0 } else { 1 });
}

/// The status as its wire string, whatever type the generator gave it.
fn status_text<T: serde::Serialize>(status: &T) -> String {
    match serde_json::to_value(status) {
        Ok(serde_json::Value::String(text)) => text,
        other => format!("{other:?}"),
    }
}

/// A random UUID (version 4): one per logical call.
fn new_key() -> String {
    let mut b = [0u8; 16];
    fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b)).unwrap_or_else(|e| fail(&e.to_string()));
    b[6] = b[6] & 0x0f | 0x40;
    b[8] = b[8] & 0x3f | 0x80;
    let hex: String = b.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

fn fail(message: &str) -> ! {
    eprintln!("smoke: {message}");
    process::exit(1)
}
