//! `capkit typo tasks`: every task, and whether the data registers it.

use typo_tasks::Registry;

use super::RegistryArgs;
use crate::stdout::Lines;

/// Arguments of `capkit typo tasks`.
#[derive(Debug, clap::Args)]
pub(crate) struct TasksArgs {
    #[command(flatten)]
    registry: RegistryArgs,
}

/// Runs `capkit typo tasks`.
pub(crate) fn run(args: &TasksArgs) -> anyhow::Result<()> {
    let registry = args.registry.registry()?;
    let mut out = Lines::default();
    out.line(format_args!(
        "{:<4} {:<32} {:<9} registered",
        "id", "title", "needs"
    ));
    for info in Registry::catalog() {
        let status = match registry.why_unregistered(info.id) {
            None => "yes".to_owned(),
            Some(u) => format!("no: the `{}` table is empty", u.table),
        };
        out.line(format_args!(
            "{:<4} {:<32} {:<9} {status}",
            info.id,
            info.title,
            info.needs.as_str()
        ));
    }
    out.print()
}
