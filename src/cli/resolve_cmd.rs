//! `shadowjudge resolve`: movement phases in batch, JSON Lines on stdin, one JSON line
//! per case on stdout in input order (the format is in `judge::batch`).
//!
//! With `--jobs N` the input is read in blocks; each block is cut into N contiguous
//! chunks adjudicated on N threads, and the chunks are written back in order, so the
//! output is byte-identical whatever N is.
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

use crate::diplomacy::judge::batch::BatchResolver;
use crate::diplomacy::judge::rulebook::{Edition, Rulebook};
use crate::diplomacy::map::Map;

use super::CliError;

/// Lines read before a block is adjudicated.
const BLOCK_LINES: usize = 16_384;
/// Worker stack: deep dependency chains on big maps recurse deeply.
const WORKER_STACK: usize = 64 << 20;

#[derive(clap::Args, Debug)]
#[command(after_help = "Each line of standard input is one movement phase:
  {\"id\": \"c1\", \"season\": \"spring\", \"units\": [{\"power\": \"FRANCE\", \"type\": \"A\", \"loc\": \"PAR\"}],
   \"orders\": [\"FRANCE: A PAR - BUR\"]}
Each line of standard output is its result, in the same order:
  {\"id\": \"c1\", \"units_after\": [\"FRANCE A BUR\"], \"dislodged\": [],
   \"orders\": [{\"order\": \"FRANCE: A PAR - BUR\", \"result\": \"succeeds\", \"reason\": \"moved\"}]}
An order's result is succeeds, fails, illegal (the unit holds) or invalid (not understood);
units without an order hold. A case that cannot be adjudicated gives {\"id\": ..., \"error\": \"...\"}.")]
pub struct ResolveArgs {
    /// Threads to spread the cases over (0: one per core). Output order never changes.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// The map: a variant (`ancmed`; `map list` lists them) or a map file (TOML); default:
    /// the standard map. A case may name its variant (`"variant": "ancmed"`): one on
    /// another map gets an error line.
    #[arg(long)]
    map: Option<String>,
    /// The rulebook edition: 1971, 1982, 2000, 2023 or dptg.
    #[arg(long, default_value = "2023")]
    rulebook: String,
}

/// The validated settings of a run.
struct Settings {
    jobs: usize,
    map: Map,
    rulebook: Rulebook,
}

fn settings(a: ResolveArgs) -> Result<Settings, CliError> {
    let edition = Edition::parse(&a.rulebook).ok_or_else(|| {
        CliError::Usage(format!("unknown rulebook `{}`: use 1971, 1982, 2000, 2023 or dptg", a.rulebook))
    })?;
    let map = match &a.map {
        Some(path) => {
            super::load_map(path).map_err(|e| CliError::Usage(format!("{}: {}: {}", e.file, e.key, e.message)))?
        }
        None => Map::standard(),
    };
    let jobs = match a.jobs {
        0 => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        n => n.min(256),
    };
    Ok(Settings { jobs, map, rulebook: Rulebook::edition(edition) })
}

pub fn run(a: ResolveArgs) -> Result<ExitCode, CliError> {
    let s = settings(a)?;
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let io = |e: std::io::Error| CliError::Io(e.to_string());
    let base = BatchResolver::new(&s.map, s.rulebook.clone());
    let mut lines = stdin.split(b'\n');
    loop {
        let mut block = Vec::with_capacity(BLOCK_LINES);
        for line in lines.by_ref() {
            let mut line = line.map_err(io)?;
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            // A line that is not UTF-8 is a bad case like any other: it gets its error line.
            let line = String::from_utf8(line).map_err(|e| {
                let valid = e.utf8_error().valid_up_to();
                format!("the line is not UTF-8 text (bad byte at column {})", valid + 1)
            });
            if line.as_ref().map_or(true, |l| !l.trim().is_empty()) {
                block.push(line);
            }
            if block.len() == BLOCK_LINES {
                break;
            }
        }
        if block.is_empty() {
            break;
        }
        for chunk in adjudicate_block(&s, &base, &block)? {
            out.write_all(chunk.as_bytes()).map_err(io)?;
        }
    }
    out.flush().map_err(io)?;
    Ok(ExitCode::SUCCESS)
}

/// Adjudicate a block on `jobs` threads; the chunks come back in input order, each as
/// its output lines, every line ending in a newline.
fn adjudicate_block(
    s: &Settings,
    base: &BatchResolver<'_>,
    block: &[Result<String, String>],
) -> Result<Vec<String>, CliError> {
    let per = block.len().div_ceil(s.jobs.max(1)).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = block
            .chunks(per)
            .map(|chunk| {
                let mut resolver = base.worker();
                std::thread::Builder::new().stack_size(WORKER_STACK).spawn_scoped(scope, move || {
                    let mut out = String::new();
                    for line in chunk {
                        match line {
                            Ok(line) => resolver.resolve_line_into(line, &mut out),
                            Err(why) => crate::diplomacy::judge::batch::error_line_into(&mut out, why),
                        }
                        out.push('\n');
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.map_err(|e| CliError::Io(format!("cannot start a worker thread: {e}")))?
                    .join()
                    .map_err(|_| CliError::Io("a worker thread failed".into()))
            })
            .collect()
    })
}
