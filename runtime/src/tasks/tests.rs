use super::*;
use crate::bus::LocalBus;

#[test]
fn iso_dates() {
    assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    assert_eq!(iso8601(1_796_000_908_904), "2026-11-30T01:08:28.904Z");
}

fn tasks_with(store: MemoryTaskStore, ttl: Duration) -> Tasks {
    Tasks::new(
        Arc::new(store),
        Arc::new(LocalBus),
        ttl,
        Duration::from_millis(250),
    )
}

fn tasks() -> Tasks {
    tasks_with(MemoryTaskStore::new(10), Duration::from_secs(60))
}

fn flag() -> Arc<watch::Sender<bool>> {
    Arc::new(watch::channel(false).0)
}

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_string()).unwrap()
}

/// A task stored and running here, as `TaskSlot::start` makes one.
async fn create(tasks: &Tasks, cancel: Arc<watch::Sender<bool>>) -> TaskStoreResult<TaskRecord> {
    let record = tasks.new_record(None);
    tasks.store.insert(record.clone()).await?;
    tasks.run_here(&record, cancel);
    Ok(record)
}

async fn status(tasks: &Tasks, id: &str) -> TaskStatus {
    tasks.store.get(id).await.unwrap().unwrap().status
}

#[tokio::test]
async fn outcomes_and_cancellation() {
    let tasks = tasks();
    let done = create(&tasks, flag()).await.unwrap();
    let result = JsonText::from(raw(r#"{"content":[]}"#));
    tasks.finish(&done.task_id, Ok(result)).await;
    let failed = create(&tasks, flag()).await.unwrap();
    tasks
        .finish(&failed.task_id, Err(RpcError::internal("boom")))
        .await;
    let stop = flag();
    let cancelled = create(&tasks, stop.clone()).await.unwrap();
    let params = raw(&json!({"taskId": cancelled.task_id}).to_string());
    assert_eq!(tasks.cancel(Some(&params), None).await.unwrap(), ACK);
    assert!(*stop.borrow());
    // A late outcome does not resurrect a cancelled task.
    tasks
        .finish(&cancelled.task_id, Ok(JsonText::from(raw("{}"))))
        .await;
    assert_eq!(status(&tasks, &done.task_id).await, TaskStatus::Completed);
    assert_eq!(status(&tasks, &failed.task_id).await, TaskStatus::Failed);
    assert_eq!(
        status(&tasks, &cancelled.task_id).await,
        TaskStatus::Cancelled
    );
    let unknown = raw(r#"{"taskId":"nope"}"#);
    assert_eq!(
        tasks.get(Some(&unknown), None).await.unwrap_err().code,
        -32602
    );
}

#[tokio::test]
async fn the_store_is_bounded_and_expires() {
    let tasks = tasks_with(MemoryTaskStore::new(1), Duration::from_millis(1));
    let stop = flag();
    let first = create(&tasks, stop.clone()).await.unwrap();
    let second = create(&tasks, flag()).await;
    let gone = tasks.store.get(&first.task_id).await.unwrap().is_none();
    assert!(second.is_err() || gone);
    tokio::time::sleep(Duration::from_millis(5)).await;
    tasks.remove_expired();
    // Expired: its handler is stopped and the store forgot it.
    assert!(*stop.borrow());
    assert_eq!(tasks.running_here(), 0);
    assert_eq!(tasks.store.len(), 0);
}

#[tokio::test]
async fn input_parks_the_task_until_answered() {
    let tasks = Arc::new(tasks());
    let record = create(&tasks, flag()).await.unwrap();
    let id = record.task_id.clone();
    let asking = {
        let tasks = tasks.clone();
        let id = id.clone();
        tokio::spawn(async move {
            let a = tasks.ask(&id, "a", json!({"method": "roots/list"}));
            let b = tasks.ask(&id, "b", json!({"method": "roots/list"}));
            tokio::join!(a, b)
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let task = tasks.store.get(&id).await.unwrap().unwrap();
    assert_eq!(task.status, TaskStatus::InputRequired);
    assert_eq!(task.input_requests.len(), 2);
    let answer = |key: &str| {
        raw(&json!({"taskId": id, "inputResponses": {key: {"roots": []}, "stray": 1}}).to_string())
    };
    tasks.update(Some(&answer("a")), None).await.unwrap();
    let task = tasks.store.get(&id).await.unwrap().unwrap();
    assert_eq!(task.status, TaskStatus::InputRequired);
    assert_eq!(task.input_requests.keys().collect::<Vec<_>>(), ["b"]);
    tasks.update(Some(&answer("b")), None).await.unwrap();
    let (a, b) = asking.await.unwrap();
    assert_eq!(a.unwrap(), json!({"roots": []}));
    assert_eq!(b.unwrap(), json!({"roots": []}));
    assert_eq!(status(&tasks, &id).await, TaskStatus::Working);
}

#[tokio::test]
async fn another_instances_cancel_arrives_by_the_bus() {
    let tasks = tasks();
    let stop = flag();
    let record = create(&tasks, stop.clone()).await.unwrap();
    tasks.on_bus_event(&BusEvent::TaskCancelled {
        task_id: record.task_id.clone(),
        runner: None,
    });
    assert!(*stop.borrow());
    assert_eq!(tasks.running_here(), 0);
}
