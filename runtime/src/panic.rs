//! Turning a panicking handler into an error value instead of a dead task.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Polls `future`, catching a panic raised while polling it.
///
/// The future must be `Unpin`: handlers arrive boxed already (`BoxFuture`), and boxing them
/// again here would cost every call an allocation.
pub struct CatchUnwind<F> {
    future: F,
}

impl<F: Future + Unpin> CatchUnwind<F> {
    /// Wraps `future` (`Box::pin` one that is not `Unpin`).
    pub fn new(future: F) -> Self {
        Self { future }
    }
}

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = Pin::new(&mut self.future);
        match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a handler panicked".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_while_polling_becomes_its_message() {
        let calm: crate::BoxFuture<'static, u8> = Box::pin(async { 7 });
        assert_eq!(CatchUnwind::new(calm).await, Ok(7));
        let panicking: crate::BoxFuture<'static, u8> = Box::pin(async { panic!("boom") });
        assert_eq!(CatchUnwind::new(panicking).await, Err("boom".to_string()));
    }
}
