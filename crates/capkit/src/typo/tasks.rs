//! `capkit typo tasks`: every task, and whether the data registers it.

use typo_tasks::Registry;

use super::RegistryArgs;

/// Arguments of `capkit typo tasks`.
#[derive(Debug, clap::Args)]
pub(crate) struct TasksArgs {
    #[command(flatten)]
    registry: RegistryArgs,
}

/// Runs `capkit typo tasks`.
pub(crate) fn run(args: &TasksArgs) -> anyhow::Result<()> {
    let registry = args.registry.registry()?;
    println!("{:<4} {:<32} {:<9} registered", "id", "title", "needs");
    for info in Registry::catalog() {
        let status = match registry.why_unregistered(info.id) {
            None => "yes".to_owned(),
            Some(u) => format!("no: the `{}` table is empty", u.table),
        };
        println!(
            "{:<4} {:<32} {:<9} {status}",
            info.id,
            info.title,
            info.needs.as_str()
        );
    }
    Ok(())
}
