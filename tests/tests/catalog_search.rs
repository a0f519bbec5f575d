//! `search_tools` on real vendor documents: the Ethereum execution APIs (`--tools 'eth_*'`,
//! 44 tools) and the Lotus gateway (every method a tool, 50), their descriptors made by the
//! generator as a gateway makes them. Each query is what a model would ask in its own words;
//! the tool it means must be in the top 3.

use mcp_codegen::emit::descriptor_json;
use mcp_codegen::openrpc::McpBinding;
use mcp_runtime::dispatch::{Answer, Call, CallKind};
use mcp_runtime::tool_catalog::{ToolCatalog, ToolMode};
use mcp_runtime::{
    BoxFuture, Catalog, Contract, Descriptor, Dispatch, ProtocolVersion, RequestContext,
};
use serde_json::Value;
use std::path::Path;

/// A contract of the document's tools, and nothing to call.
struct Tools(&'static Contract);

impl Dispatch for Tools {
    fn contract(&self) -> &'static Contract {
        self.0
    }

    fn call<'a>(&'a self, _: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        None
    }
}

/// The catalog of `document`'s methods that `tools` globs make tools, as a gateway has them.
fn catalog(document: &str, tools: &str) -> ToolCatalog<Tools> {
    let options = mcp_codegen::Options {
        selection: mcp_codegen::Selection {
            tools: vec![tools.into()],
            ..Default::default()
        },
        gateway: Some(mcp_codegen::Upstream::default()),
        ..Default::default()
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(document);
    let generated = mcp_codegen::generate_with_options(&path, &options).expect("generates");
    let document = &generated.document;
    let descriptors: Vec<Descriptor> = document
        .methods
        .iter()
        .filter_map(|method| {
            let binding @ McpBinding::Tool(_) = method.mcp.as_ref()? else {
                return None;
            };
            let json = descriptor_json(document, method, binding)
                .map(|json| &*Box::leak(json.into_boxed_str()));
            Some(Descriptor {
                key: Box::leak(method.name.clone().into_boxed_str()),
                json,
            })
        })
        .collect();
    let catalog: &'static Catalog = Box::leak(Box::new(Catalog {
        tools: Box::leak(descriptors.into_boxed_slice()),
        ..Catalog::empty("search", "1")
    }));
    let contract: &'static Contract = Box::leak(Box::new(Contract::new(catalog)));
    ToolCatalog::new(Tools(contract), ToolMode::Catalog)
}

/// The names `search_tools` answers for `query`, best first.
async fn search(catalog: &ToolCatalog<Tools>, query: &str) -> Vec<String> {
    let arguments = serde_json::value::to_raw_value(&serde_json::json!({"query": query})).unwrap();
    let ctx = RequestContext::new(ProtocolVersion::V2025_11_25);
    let call = Call::new(CallKind::Tool, "search_tools", Some(&arguments), ctx);
    let Answer::Success(json) = catalog.call(call).expect("search_tools").await else {
        panic!("search_tools failed for {query:?}");
    };
    let found: Value = serde_json::from_str(json.get()).unwrap();
    found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Every query's expected tool in its top 3; the whole table's misses at once.
async fn check(catalog: &ToolCatalog<Tools>, table: &[(&str, &str)]) {
    let mut misses = Vec::new();
    for (query, expected) in table {
        let found = search(catalog, query).await;
        if !found.iter().take(3).any(|name| name == expected) {
            misses.push(format!(
                "{query:?}: expected {expected} in {:?}",
                &found[..found.len().min(5)]
            ));
        }
    }
    assert!(
        misses.is_empty(),
        "{} of {} missed:\n{}",
        misses.len(),
        table.len(),
        misses.join("\n")
    );
}

#[tokio::test]
async fn ethereum_queries_find_their_tool_in_the_top_three() {
    let catalog = catalog("fixtures/gateway/ethereum.openrpc.json", "eth_*");
    check(
        &catalog,
        &[
            ("latest block", "eth_blockNumber"),
            ("current block height", "eth_blockNumber"),
            ("transfer ether", "eth_sendTransaction"),
            ("account balance", "eth_getBalance"),
            ("how much ether does an address hold", "eth_getBalance"),
            ("gas price", "eth_gasPrice"),
            ("transaction receipt", "eth_getTransactionReceipt"),
            ("chain id", "eth_chainId"),
            ("contract bytecode", "eth_getCode"),
            ("nonce of an account", "eth_getTransactionCount"),
            ("event logs", "eth_getLogs"),
            ("estimate gas", "eth_estimateGas"),
            ("sign a message", "eth_sign"),
            ("simulate a contract call", "eth_call"),
            ("block by hash", "eth_getBlockByHash"),
            ("storage slot", "eth_getStorageAt"),
            ("merkle proof", "eth_getProof"),
            ("is the node syncing", "eth_syncing"),
            (
                "broadcast a signed raw transaction",
                "eth_sendRawTransaction",
            ),
            ("transaction by hash", "eth_getTransactionByHash"),
        ],
    )
    .await;
}

#[tokio::test]
async fn lotus_queries_find_their_tool_in_the_top_three() {
    let catalog = catalog(
        "fixtures/third-party/lotus/build/openrpc/v2/gateway.json",
        "*",
    );
    check(
        &catalog,
        &[
            ("tipset", "Filecoin.ChainGetTipSet"),
            ("current block height", "Filecoin.EthBlockNumber"),
            (
                "convert eth address to filecoin",
                "Filecoin.EthAddressToFilecoinAddress",
            ),
            ("client version", "Filecoin.Web3ClientVersion"),
            ("actor state", "Filecoin.StateGetActor"),
            ("transaction receipt", "Filecoin.EthGetTransactionReceipt"),
            ("account balance", "Filecoin.EthGetBalance"),
            ("remove a filter", "Filecoin.EthUninstallFilter"),
            ("send raw transaction", "Filecoin.EthSendRawTransaction"),
            ("network version", "Filecoin.NetVersion"),
            ("gas price", "Filecoin.EthGasPrice"),
            ("finality status", "Filecoin.ChainGetTipSetFinalityStatus"),
        ],
    )
    .await;
}

#[tokio::test]
async fn an_empty_query_lists_every_tool_in_declaration_order() {
    let catalog = catalog(
        "fixtures/third-party/lotus/build/openrpc/v2/gateway.json",
        "*",
    );
    let every = search(&catalog, "").await;
    assert_eq!(every.len(), 20, "the default limit");
    assert_eq!(every[0], "Filecoin.ChainGetTipSet");
    assert!(search(&catalog, "zebra crossing").await.is_empty());
}
