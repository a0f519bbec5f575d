//! The errors of [`super::init`], [`super::init_logging`] and [`super::parse_log_filter`].

use std::fmt;

/// Why [`super::init`] or [`super::init_logging`] could not set up the telemetry. Its
/// `to_string()` names the environment variable that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InitError {
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is set, but the OTLP exporter could not be built
    /// (feature `otel`): `reason` is the exporter's error.
    OtlpExporter {
        /// What the OTLP exporter's builder said.
        reason: String,
    },
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OtlpExporter { reason } => write!(
                f,
                "OTEL_EXPORTER_OTLP_ENDPOINT: cannot start the OTLP exporter: {reason}"
            ),
        }
    }
}

impl std::error::Error for InitError {}

/// Why [`super::parse_log_filter`] refused a filter; `filter` is the text refused (trimmed).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogFilterError {
    /// A span or field directive (`target[span{field=value}]=level`), which is not supported.
    SpanOrFieldDirective {
        /// The filter refused.
        filter: String,
    },
    /// Not a list of levels and `target=level` directives.
    Syntax {
        /// The filter refused.
        filter: String,
        /// What `tracing_subscriber` said of it.
        reason: String,
    },
}

impl LogFilterError {
    /// The filter refused (trimmed).
    pub fn filter(&self) -> &str {
        match self {
            Self::SpanOrFieldDirective { filter } | Self::Syntax { filter, .. } => filter,
        }
    }
}

impl fmt::Display for LogFilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SpanOrFieldDirective { filter } => write!(
                f,
                "`{filter}`: span and field directives (`target[span{{field=value}}]=level`) are \
                 not supported; use levels and `target=level` directives, such as \
                 info,mcp_runtime=debug"
            ),
            Self::Syntax { filter, reason } => write!(
                f,
                "`{filter}`: {reason}; expected levels and `target=level` directives, such as \
                 info,mcp_runtime=debug"
            ),
        }
    }
}

impl std::error::Error for LogFilterError {}

#[cfg(test)]
mod tests {
    use super::super::parse_log_filter;
    use super::*;

    #[test]
    fn log_filter_errors_are_typed_and_display_the_old_messages() {
        match parse_log_filter(" mcp[span{a=1}]=debug ").unwrap_err() {
            error @ LogFilterError::SpanOrFieldDirective { .. } => {
                assert_eq!(error.filter(), "mcp[span{a=1}]=debug");
                assert_eq!(
                    error.to_string(),
                    "`mcp[span{a=1}]=debug`: span and field directives \
                     (`target[span{field=value}]=level`) are not supported; use levels and \
                     `target=level` directives, such as info,mcp_runtime=debug"
                );
            }
            other => panic!("a span directive error expected, got {other:?}"),
        }
        match parse_log_filter("mcp=loud").unwrap_err() {
            LogFilterError::Syntax { filter, reason } => {
                let error = LogFilterError::Syntax {
                    filter: filter.clone(),
                    reason: reason.clone(),
                };
                assert_eq!(filter, "mcp=loud");
                let parse = "mcp=loud".parse::<tracing_subscriber::filter::Targets>();
                assert_eq!(reason, parse.unwrap_err().to_string());
                assert_eq!(
                    error.to_string(),
                    format!(
                        "`mcp=loud`: {reason}; expected levels and `target=level` directives, \
                         such as info,mcp_runtime=debug"
                    )
                );
            }
            other => panic!("a syntax error expected, got {other:?}"),
        }
    }

    #[test]
    fn init_error_displays_the_old_message() {
        let error = InitError::OtlpExporter {
            reason: "no client".into(),
        };
        assert!(matches!(&error, InitError::OtlpExporter { reason } if reason == "no client"));
        assert_eq!(
            error.to_string(),
            "OTEL_EXPORTER_OTLP_ENDPOINT: cannot start the OTLP exporter: no client"
        );
    }
}
