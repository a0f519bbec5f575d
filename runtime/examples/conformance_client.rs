//! The client the official conformance suite drives in client mode
//! (`conformance/run.sh --client-cmd`): `npx @modelcontextprotocol/conformance client
//! --command "<this binary>"` starts a scenario server and runs this with its URL as the last
//! argument, the scenario in `MCP_CONFORMANCE_SCENARIO` and the revision in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION`.
//!
//! What it does is what an application does with `mcp_runtime::client`: connect in the era the
//! revision names (a session up to 2025-11-25, stateless at 2026-07-28), list the tools, call
//! each with arguments its input schema asks for, answer the server's requests (elicitation
//! with the form's defaults, sampling, roots), close. One scenario asks for more: a tool
//! taking a `schema` object (`json_schema_echo`) is given another tool's input schema as the
//! client holds it, which shows that the client kept it as published.
//!
//! OAuth is always configured (a server that never answers 401 never starts the flow), as
//! an application would configure it: dynamic registration, or the client ID metadata
//! document URL the suite expects when the server supports those, or the pre-registered
//! credentials `MCP_CONFORMANCE_CONTEXT` gives (`client_id`, `client_secret`,
//! `private_key_pem`, `issuer`); the `auth/client-credentials-*` scenarios are machine
//! clients (the client credentials grant). The suite's authorization server approves
//! without a user, so the client follows the authorization URL itself. DPoP is used where
//! the authorization server supports it (`auth/dpop*`). A context with a workload token
//! (`valid_jwt`, `auth/wif-jwt-bearer`) gives the JWT-bearer grant; one with an ID token and
//! its identity provider (`idp_id_token`, `idp_token_endpoint`, `idp_client_id`,
//! `auth/enterprise-managed-authorization`) gives enterprise-managed authorization.
//!
//! ```text
//! cargo build -p mcp-runtime --features client --example conformance_client
//! MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25 target/debug/examples/conformance_client URL
//! ```

use mcp_runtime::client::{
    Assertion, Client, ClientError, ClientHandler, Dpop, Era, Grant, IdentityProvider, OAuth,
    PreRegistered,
};
use mcp_runtime::{BoxFuture, RpcError};
use serde_json::{json, Map, Value};
use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    // The client's own logs (RUST_LOG=debug, say) go to stderr, which the suite prints.
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "error".into());
    let _telemetry = mcp_runtime::telemetry::init_logging("conformance-client", &filter, false);
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client URL (the suite appends it)");
        return ExitCode::from(2);
    };
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let era = match version.as_str() {
        "2026-07-28" => Era::Stateless,
        "" => Era::Auto,
        _ => Era::Legacy,
    };
    match run(&url, era, oauth(&scenario)).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance_client ({scenario}, {version}): {error}");
            ExitCode::FAILURE
        }
    }
}

/// The URL of the client's metadata document, the `client_id` the suite expects at servers
/// that support client ID metadata documents.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth configuration for `scenario`, with the credentials of `MCP_CONFORMANCE_CONTEXT`.
fn oauth(scenario: &str) -> OAuth {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|context| serde_json::from_str(&context).ok())
        .unwrap_or(Value::Null);
    let mut oauth = OAuth::new()
        .client_name("mcp-codegen-conformance-client")
        .client_metadata_url(CLIENT_METADATA_URL)
        .dpop(Dpop::WhenSupported);
    if let Some(client_id) = context["client_id"].as_str() {
        let mut credentials = PreRegistered::new(client_id);
        if let Some(secret) = context["client_secret"].as_str() {
            credentials = credentials.secret(secret);
        }
        if let Some(pem) = context["private_key_pem"].as_str() {
            let algorithm = context["signing_algorithm"].as_str().unwrap_or("ES256");
            credentials = credentials.private_key_pem(pem, algorithm);
        }
        // The suite's authorization server is the one its MCP server names: trusted here.
        credentials = match context["issuer"].as_str() {
            Some(issuer) => credentials.issuer(issuer),
            None => credentials.for_any_issuer(),
        };
        oauth = oauth.pre_registered(credentials);
    }
    if scenario.starts_with("auth/client-credentials") {
        oauth = oauth.grant(Grant::ClientCredentials);
    }
    if let Some(jwt) = context["valid_jwt"].as_str() {
        oauth = oauth.grant(Grant::JwtBearer(Assertion::fixed(jwt)));
    }
    if let (Some(id_token), Some(endpoint), Some(client_id)) = (
        context["idp_id_token"].as_str(),
        context["idp_token_endpoint"].as_str(),
        context["idp_client_id"].as_str(),
    ) {
        let idp = IdentityProvider::new(endpoint, client_id, Assertion::fixed(id_token));
        oauth = oauth.grant(Grant::EnterpriseManaged(idp));
    }
    oauth
}

async fn run(url: &str, era: Era, oauth: OAuth) -> Result<(), ClientError> {
    let client = Client::builder(url)
        .era(era)
        .oauth(oauth)
        .client_info("mcp-codegen-conformance-client", env!("CARGO_PKG_VERSION"))
        .handler(User)
        .connect()
        .await?;
    let tools = client.list_tools_all().await?;
    for tool in &tools {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        let arguments = match echoed_schema(tool, &tools) {
            Some(schema) => json!({"schema": schema}),
            None => arguments_for(&tool["inputSchema"]),
        };
        match client.call_tool(name, arguments).await {
            // A tool's own error, or the server's JSON-RPC error, is an answer: the client
            // did its part.
            Ok(_) | Err(ClientError::Tool(_)) => {}
            Err(ClientError::Rpc(error)) => eprintln!("tools/call {name}: {error:?}"),
            Err(error) => return Err(error),
        }
    }
    client.close().await
}

/// For a tool whose only input is a `schema` object, the input schema of the first other tool.
fn echoed_schema<'a>(tool: &Value, tools: &'a [Value]) -> Option<&'a Value> {
    let properties = tool["inputSchema"]["properties"].as_object()?;
    if properties.len() != 1 || properties.get("schema")?["type"] != "object" {
        return None;
    }
    tools
        .iter()
        .find(|other| other["name"] != tool["name"])
        .map(|other| &other["inputSchema"])
}

/// Arguments an input schema accepts: each required property (and each with a default) given
/// its default, else a value of its type.
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            if let Some(default) = property.get("default") {
                arguments.insert(name.clone(), default.clone());
            } else if required.contains(&name.as_str()) {
                arguments.insert(name.clone(), example_of(property));
            }
        }
    }
    Value::Object(arguments)
}

/// A value `schema` accepts, for the simple schemas tools declare.
fn example_of(schema: &Value) -> Value {
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|values| values.first()) {
        return first.clone();
    }
    match schema["type"].as_str() {
        Some("number") => json!(2.5),
        Some("integer") => json!(2),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") => arguments_for(schema),
        // Not plain ASCII, so that header values take their base64 form too.
        _ => json!("conformance ✓"),
    }
}

/// The user and model behind the client: accepts every elicitation with the form's defaults,
/// answers sampling with a fixed message, and has one root.
struct User;

impl ClientHandler for User {
    fn capabilities(&self) -> Value {
        json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {"listChanged": true}})
    }

    fn elicit<'a>(&'a self, params: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        Box::pin(async move {
            let content = arguments_for(&params["requestedSchema"]);
            Ok(json!({"action": "accept", "content": content}))
        })
    }

    fn create_message<'a>(&'a self, _: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        Box::pin(async {
            Ok(json!({"role": "assistant", "model": "conformance-client",
                      "content": {"type": "text", "text": "Hello from the conformance client"},
                      "stopReason": "endTurn"}))
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, RpcError>> {
        Box::pin(async { Ok(json!({"roots": [{"uri": "file:///tmp", "name": "tmp"}]})) })
    }
}
