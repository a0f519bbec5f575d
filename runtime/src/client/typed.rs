//! What a generated typed client calls: one function per kind of MCP request, taking the
//! contract's params type and decoding the answer into its result type.
//!
//! `mcp-codegen --client` (or `Builder::client`) writes a `client::Client` with one method
//! per tool, prompt, resource and template of the contract; each is a line that calls one of
//! these functions. They undo what the server's generated dispatch did: a tool's result is
//! read from `structuredContent` (or, where the revision has none, from its text block), a
//! prompt's from its one message, a resource's from its contents' text.

use super::{Client, ClientError};
use crate::validate::{Validate, Violations};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// The error of a typed call.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallError {
    /// The arguments break the contract's schema (`minimum`, `maxLength`, `pattern`, ...):
    /// nothing was sent. Each violation has its JSON pointer, as the server would report it.
    InvalidArguments(Violations),
    /// The tool ran and reported an error (`isError: true`); the whole `CallToolResult` is
    /// kept, its `content` says what went wrong.
    Tool(Value),
    /// The answer arrived but is not the contract's result type; the message says where.
    UnexpectedResult(String),
    /// The call itself failed: transport, timeout, a JSON-RPC error, ...
    Client(ClientError),
}

impl CallError {
    /// The text the tool reported, when this is [`CallError::Tool`].
    pub fn tool_message(&self) -> Option<String> {
        match self {
            CallError::Tool(result) => Some(texts(result).join(" ")),
            _ => None,
        }
    }

    /// The JSON-RPC error code, when the server answered with one.
    pub fn rpc_code(&self) -> Option<i32> {
        match self {
            CallError::Client(error) => error.rpc_code(),
            _ => None,
        }
    }
}

impl From<ClientError> for CallError {
    fn from(error: ClientError) -> Self {
        match error {
            ClientError::Tool(result) => CallError::Tool(result),
            other => CallError::Client(other),
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::InvalidArguments(violations) => {
                write!(f, "invalid arguments (not sent): {}", violations.message())
            }
            CallError::Tool(result) => {
                write!(f, "the tool reported an error: {}", texts(result).join(" "))
            }
            CallError::UnexpectedResult(message) => write!(f, "unexpected result: {message}"),
            CallError::Client(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::Client(error) => Some(error),
            _ => None,
        }
    }
}

/// The arguments of a method without params: they serialize as `{}`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct NoArguments {}

/// The contract's checks of `params` ([`Validate`]), run before anything is sent: the
/// generated client calls this for params types that have checks beyond serde's.
pub fn check_arguments<P: Validate + ?Sized>(params: &P) -> Result<(), CallError> {
    let mut violations = Violations::new();
    params.validate(&crate::validate::Path::Root, &mut violations);
    match violations.is_empty() {
        true => Ok(()),
        false => Err(CallError::InvalidArguments(violations)),
    }
}

/// `tools/call` of `name` with `params`; the result decoded as `R` from `structuredContent`,
/// or from the text block when the revision sent none. A result over the tool's budget
/// (an outline and a `resource_link` to `mcp-result://…`) is read
/// back whole through its link and decoded from that.
pub async fn call_tool<P, R>(client: &Client, name: &str, params: &P) -> Result<R, CallError>
where
    P: Serialize + ?Sized,
    R: DeserializeOwned,
{
    let result = client.call_tool(name, arguments(params)?).await?;
    match result.get("structuredContent") {
        Some(structured) => decode(structured.clone(), "structuredContent"),
        None => match kept_result(&result["content"]) {
            Some(uri) => read_resource(client, uri).await,
            None => decode_text(first_text(&result["content"]), "the tool's text content"),
        },
    }
}

/// The `mcp-result://` link of a result kept for being over its tool's budget, if `content`
/// holds one.
fn kept_result(content: &Value) -> Option<&str> {
    content.as_array()?.iter().find_map(|block| {
        let uri = block["uri"].as_str()?;
        (block["type"] == "resource_link" && uri.starts_with(crate::result_budget::SCHEME))
            .then_some(uri)
    })
}

/// `tools/call` of a tool whose handler returns the MCP result itself (`x-mcp.output: "mcp"`):
/// the whole `CallToolResult`.
pub async fn call_tool_result<P>(
    client: &Client,
    name: &str,
    params: &P,
) -> Result<Value, CallError>
where
    P: Serialize + ?Sized,
{
    Ok(client.call_tool(name, arguments(params)?).await?)
}

/// `prompts/get` of `name` with `params`; the result decoded as `R` from the text of its one
/// message.
pub async fn get_prompt<P, R>(client: &Client, name: &str, params: &P) -> Result<R, CallError>
where
    P: Serialize + ?Sized,
    R: DeserializeOwned,
{
    let result = client.get_prompt(name, arguments(params)?).await?;
    let text = result["messages"][0]["content"]["text"].as_str();
    decode_text(text, "the prompt's message")
}

/// `prompts/get` of a prompt whose handler returns the MCP result itself.
pub async fn get_prompt_result<P>(
    client: &Client,
    name: &str,
    params: &P,
) -> Result<crate::mcp::GetPromptResult, CallError>
where
    P: Serialize + ?Sized,
{
    let result = client.get_prompt(name, arguments(params)?).await?;
    decode(result, "the GetPromptResult")
}

/// `resources/read` of `uri`; the result decoded as `R` from the text of its contents.
pub async fn read_resource<R: DeserializeOwned>(
    client: &Client,
    uri: &str,
) -> Result<R, CallError> {
    let result = client.read_resource(uri).await?;
    decode_text(
        result["contents"][0]["text"].as_str(),
        "the resource's text contents",
    )
}

/// `resources/read` of a resource whose handler returns the MCP result itself.
pub async fn read_resource_result(
    client: &Client,
    uri: &str,
) -> Result<crate::mcp::ReadResourceResult, CallError> {
    let result = client.read_resource(uri).await?;
    decode(result, "the ReadResourceResult")
}

/// The URI of a resource template with `params` as its variables ([`crate::uri_template::expand`]).
pub fn template_uri<P: Serialize + ?Sized>(
    template: &str,
    params: &P,
) -> Result<String, CallError> {
    let Value::Object(values) = arguments(params)? else {
        return Err(CallError::Client(ClientError::Config(
            "a template's params must serialize as an object".into(),
        )));
    };
    crate::uri_template::expand(template, &values)
        .map_err(|error| CallError::Client(ClientError::Config(error.to_string())))
}

/// The params as the JSON object the request carries.
fn arguments<P: Serialize + ?Sized>(params: &P) -> Result<Value, CallError> {
    match serde_json::to_value(params) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(Value::Null) => Ok(Value::Object(Map::new())),
        Ok(_) => Err(CallError::Client(ClientError::Config(
            "the params must serialize as a JSON object".into(),
        ))),
        Err(error) => Err(CallError::Client(ClientError::Config(format!(
            "the params did not serialize: {error}"
        )))),
    }
}

/// `value` as `R`; `what` names the part of the answer in the error.
fn decode<R: DeserializeOwned>(value: Value, what: &str) -> Result<R, CallError> {
    serde_json::from_value(value)
        .map_err(|error| CallError::UnexpectedResult(format!("{what}: {error}")))
}

/// A result shown as text, as the server's dispatch writes it: a string result as itself,
/// any other value as its JSON. So the text is read as JSON first, then as a string.
fn decode_text<R: DeserializeOwned>(text: Option<&str>, what: &str) -> Result<R, CallError> {
    let Some(text) = text else {
        return Err(CallError::UnexpectedResult(format!("{what} is missing")));
    };
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(as_json) => serde_json::from_value(Value::String(text.to_owned())).map_err(|_| {
            CallError::UnexpectedResult(format!(
                "{what} is neither the result's JSON ({as_json}) nor its string"
            ))
        }),
    }
}

/// The first text block of `content`.
fn first_text(content: &Value) -> Option<&str> {
    content
        .as_array()?
        .iter()
        .find(|block| block["type"] == "text")?
        .get("text")?
        .as_str()
}

/// Every text block of a tool result.
fn texts(result: &Value) -> Vec<&str> {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_result_reads_as_json_then_as_a_string() {
        assert_eq!(decode_text::<i64>(Some("5"), "x").unwrap(), 5);
        assert_eq!(decode_text::<String>(Some("hello"), "x").unwrap(), "hello");
        // A string result that happens to be JSON of another type is still the string.
        assert_eq!(decode_text::<String>(Some("123"), "x").unwrap(), "123");
        assert_eq!(
            decode_text::<Vec<u8>>(Some("[1,2]"), "x").unwrap(),
            vec![1, 2]
        );
        let error = decode_text::<i64>(Some("five"), "the tool's text content").unwrap_err();
        assert!(
            error.to_string().contains("the tool's text content"),
            "{error}"
        );
        assert!(matches!(
            decode_text::<i64>(None, "x"),
            Err(CallError::UnexpectedResult(_))
        ));
    }

    #[test]
    fn arguments_are_an_object() {
        assert_eq!(arguments(&NoArguments {}).unwrap(), json!({}));
        assert!(arguments(&5).is_err());
    }

    #[test]
    fn template_params_expand_into_the_uri() {
        #[derive(Serialize)]
        struct Params {
            id: String,
        }
        let uri = template_uri("notes://notes/{id}", &Params { id: "a/b".into() }).unwrap();
        assert_eq!(uri, "notes://notes/a%2Fb");
    }
}
