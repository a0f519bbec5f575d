//! The macro that turns the table of settings in `config.rs` into [`Config`](super::Config),
//! its `Default`, the [`ConfigBuilder`](super::ConfigBuilder) setters and the rows of the
//! command line (`entry::settings::Setting`), so that each setting is written once.

/// Expands the table of settings (see `config.rs`).
///
/// Each row is a field: its documentation, `name: Type = default`, then optionally
///
/// - `set |value: Type| ... => "why"`: what the builder's setter does to the value (e.g. a
///   clamp), the reason added to the setter's documentation;
/// - `cli { flag, env, value, heading, scope, help, parse, show }`: the field is also a flag
///   and an environment variable of a server binary. `value` is the value's name in `--help`
///   (`None`: a switch), `heading` one of `entry::settings::heading`, `scope` an
///   `entry::settings::Scope` variant, `help` the `--help` line, `parse` a
///   `fn(&str) -> Result<Type, String>` (its error says what is wrong, without naming the flag)
///   and `show` a `fn(Type) -> String` writing the default in the form `parse` reads.
macro_rules! config_table {
    (
        $(#[$struct_meta:meta])*
        pub struct $config:ident, builder $builder:ident, command line $settings:ident {
            $(
                $(#[$meta:meta])*
                $field:ident : $ty:ty = $default:expr
                $(, set $set:expr => $set_why:literal)?
                $(, cli {
                    flag: $flag:literal, env: $env:expr, value: $value:expr,
                    heading: $heading:ident, scope: $scope:ident,
                    help: $help:expr,
                    parse: $parse:expr, show: $show:expr $(,)?
                })?;
            )*
        }
    ) => {
        $(#[$struct_meta])*
        pub struct $config {
            $(
                $(#[$meta])*
                pub $field: $ty,
            )*
        }

        impl Default for $config {
            fn default() -> Self {
                Self {
                    $($field: $default,)*
                }
            }
        }

        /// Builds a [`Config`]: starts from [`Config::default`]; each method sets the field of
        /// the same name; [`build`](Self::build) returns the result. See [`Config`] for an
        /// example.
        #[derive(Debug, Clone, Default)]
        #[must_use]
        pub struct $builder {
            config: $config,
        }

        impl $builder {
            $(
                #[doc = concat!(
                    "Sets [`Config::", stringify!($field), "`]",
                    $(" (", $set_why, ")",)?
                    "."
                )]
                pub fn $field(mut self, $field: $ty) -> Self {
                    self.config.$field = config_table!(@set $field: $ty $(, $set)?);
                    self
                }
            )*

            /// The built [`Config`].
            pub fn build(self) -> $config {
                self.config
            }
        }

        /// The rows of the command line that set one field of [`Config`] each, in table order.
        pub(crate) const $settings: &[$crate::entry::settings::Setting] = &[
            $($(
                $crate::entry::settings::Setting {
                    flag: $flag,
                    env: $env,
                    value: $value,
                    heading: $crate::entry::settings::heading::$heading,
                    help: $help,
                    scope: $crate::entry::settings::Scope::$scope,
                    default: |config| {
                        let show: fn($ty) -> String = $show;
                        show(Clone::clone(&config.$field))
                    },
                    apply: |parsed, given| {
                        let parse: fn(&str) -> Result<$ty, String> = $parse;
                        parsed.config.$field = parse(given.text)?;
                        Ok(())
                    },
                },
            )?)*
        ];
    };
    (@set $value:ident: $ty:ty) => {
        $value
    };
    (@set $value:ident: $ty:ty, $set:expr) => {{
        let set: fn($ty) -> $ty = $set;
        set($value)
    }};
}

pub(crate) use config_table;
