use std::time::Duration;

use super::*;

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn pages_tile_the_text_without_cutting_a_character() {
    // One-, two-, three- and four-byte characters, so every page boundary falls somewhere
    // inside one for some page size.
    let text: String = "a é € 𝄞 ".repeat(40);
    let store = MemoryResultStore::new(1 << 20);
    block_on(async {
        store
            .keep("k", &text, Duration::from_secs(60))
            .await
            .unwrap();
        for size in 1..=13 {
            let mut joined = Vec::new();
            for page in 0.. {
                let start = page * size;
                let slice = store
                    .read("k", start, start + size + 3)
                    .await
                    .unwrap()
                    .unwrap();
                let slice = page_of(slice, start, start + size);
                assert!(
                    std::str::from_utf8(&slice.bytes).is_ok(),
                    "size {size} page {page}"
                );
                joined.extend_from_slice(&slice.bytes);
                if start + size >= text.len() {
                    break;
                }
            }
            assert_eq!(String::from_utf8(joined).unwrap(), text, "size {size}");
        }
    });
}

#[test]
fn a_kept_uri_has_one_spelling() {
    let id = "0".repeat(64);
    let whole = format!("{id}-65536");
    assert_eq!(
        KeptUri::parse(&whole),
        Some(KeptUri {
            id: &whole,
            page_size: 65536,
            page: None
        })
    );
    assert_eq!(KeptUri::parse(&format!("{whole}/3")).unwrap().page, Some(3));
    for bad in [
        format!("{whole}/0"),
        format!("{whole}/03"),
        format!("{whole}/"),
        format!("{whole}/3/4"),
        format!("{whole}/-1"),
        format!("{whole}/99999999999999"),
        format!("{id}-0"),
        format!("{id}-065536"),
        id.clone(),
        format!("{}-65536", "A".repeat(64)),
        format!("{}-65536", "0".repeat(63)),
        "../etc/passwd".into(),
        String::new(),
    ] {
        assert_eq!(KeptUri::parse(&bad), None, "{bad}");
    }
}

#[test]
fn an_outline_keeps_the_shape_and_stays_small() {
    let transactions: Vec<_> = (0..500)
        .map(|i| serde_json::json!({"hash": format!("0x{i:064x}"), "input": "0x".to_string() + &"ab".repeat(2000)}))
        .collect();
    let block =
        serde_json::json!({"number": "0x1b4", "hash": "0xdead", "transactions": transactions});
    let text = block.to_string();
    let outline = outline::outline(&text, 64 * 1024);
    assert!(outline.len() <= 4096, "{}", outline.len());
    let value: serde_json::Value = serde_json::from_str(&outline).expect("an outline is JSON");
    assert_eq!(value["number"], "0x1b4");
    let shown = value["transactions"].as_array().unwrap();
    assert!(
        shown
            .last()
            .unwrap()
            .as_str()
            .unwrap()
            .ends_with("(500 in all)"),
        "{outline}"
    );
    assert!(
        shown[0]["input"]
            .as_str()
            .unwrap()
            .ends_with("(4002 characters)"),
        "{outline}"
    );
    // A small budget, a smaller outline; text that is not JSON, its start.
    assert!(outline::outline(&text, 1024).len() <= 256);
    assert_eq!(outline::outline(&"x".repeat(10_000), 1024), "x".repeat(128));
}

#[test]
fn the_memory_store_drops_the_oldest_past_its_bound_and_the_expired() {
    // Room for two entries of 5 bytes (each counts its key twice and the overhead), not three.
    let store = MemoryResultStore::new(2 * (5 + 2 + ENTRY_OVERHEAD) + 4);
    block_on(async {
        let long = Duration::from_secs(60);
        store.keep("a", "12345", long).await.unwrap();
        store.keep("b", "12345", long).await.unwrap();
        store.keep("c", "123", long).await.unwrap();
        assert_eq!(store.read("a", 0, 9).await.unwrap(), None);
        assert_eq!(
            store.read("b", 0, 9).await.unwrap().unwrap().bytes,
            b"12345"
        );
        assert_eq!(store.read("c", 0, 9).await.unwrap().unwrap().bytes, b"123");
        let huge = "1".repeat(300);
        assert!(store
            .keep("d", &huge, long)
            .await
            .unwrap_err()
            .contains("--max-kept-result-bytes"));
        store
            .keep("e", "1", Duration::from_millis(1))
            .await
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(store.read("e", 0, 9).await.unwrap(), None);
        // Past the end: the length, no bytes.
        let past = store.read("c", 7, 9).await.unwrap().unwrap();
        assert_eq!((past.len, past.bytes.len()), (3, 0));
    });
}

#[test]
fn numbers_and_durations_read_as_words() {
    assert_eq!(grouped(1_234_567), "1,234,567");
    assert_eq!(grouped(65_536), "65,536");
    assert_eq!(grouped(999), "999");
    assert_eq!(human(Duration::from_secs(600)), "10 minutes");
    assert_eq!(human(Duration::from_secs(3600)), "1 hour");
    assert_eq!(human(Duration::from_secs(90)), "90 seconds");
}
