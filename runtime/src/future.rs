//! [`BoxFuture`]: the one future type the runtime's traits return (dispatch, stores, bus,
//! authentication), in a module of its own so that any of them can name it without
//! importing another.

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future: what a trait object's async method returns (dispatch routes any
/// method through one, a store does its round trips in one).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
