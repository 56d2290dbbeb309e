//! The usage text of `memdag help`.

/// The usage text.
pub const USAGE: &str = "\
memdag: agent memory as a DAG of turns, run as a WebAssembly component

usage: memdag [OPTIONS] <COMMAND>

commands:
  demo                      ingest the bundled sample session (new turns only), then show
                            the recent turns of its last thread and the ancestors of its last turn
  ingest <FILE.jsonl>       add one turn per line in the JSON turn shape (id, thread, user,
                            createdAt as ISO 8601 or ms (now when missing), input or text,
                            output; optional parents, steps (ok defaults to true), tags,
                            importance, embedding); turns already stored are skipped (a turn
                            without an id gets one from its content, so a reformatted file is
                            not stored twice), and ids stored with other text are reported;
                            progress on stderr; --json for a JSON summary. --extract learns
                            memory items from each turn (by the rules, or with --llm-cmd
                            through the LLM)
  search <QUERY>            ranked search [--mode bm25|vector|hybrid] [--k N] [--thread T]
                            [--user U] [--scope all|turns|items] [--kind K]... [--now TIME]
                            [--json] and the ranking options below. A relative date in the
                            query (\"last week\", \"上周\") keeps to its range, resolved against
                            --now (default: the clock) and printed
  search --batch <FILE>     one query per line (a JSON string, or {\"id\", \"text\",
                            \"embedding\", \"thread\", \"user\", \"now\"}); prints one JSON line per
                            query with the ranked ids and scores; takes the same options, but
                            resolves relative dates only against --now or the line's now
  grep <PATTERN>            regular expression over raw logs [-i] [--field F]... [--user U]
                            [--json]
  recall                    the memory block for a new turn: --thread T --user U [--budget N]
                            [--query TEXT] [--now TIME] [--json]; recency and expiry count
                            from --now (default: the clock); it counts a use of each turn it
                            returns, so it takes the writer's lock
  compact <ID>              write the turn's compact node: with --llm-cmd, else extractive
  show <ID> [--raw]         one turn in full; --raw prints its tool log unabridged
  dag <ID> [DEPTH]          the ancestors and descendants of a turn, drawn as trees
  recent <THREAD> [N]       the N newest turns of a thread (default 10) [--user U]
  ancestors <ID> [DEPTH]    the DAG ancestors of a turn as a tree (default depth 16)
  get <ID>                  one turn in full (as show)
  delete <ID>               delete one turn; its children take over its parents
  forget-user <USER>        erase every turn of a user, the blobs only they referenced, and
                            their index entries; the store is rewritten so no file keeps them
  limits                    the limits turns are checked against, as JSON
  reindex [--batch-size N]  embed every turn again, to move to another embedding model (and
                            dimension): with --embed-cmd, N texts per call (default 64),
                            else with the built-in embedder; progress on stderr

  With --user U, show, get, dag, recent, ancestors and grep return only what U may see: U's
  own turns and those tagged \"shared\" (search, recall, timeline, graph and the memory
  commands take --user the same way). Without it they read every user's memory. An empty
  --user is an error (it names nobody), and a command that is not kept to a user refuses it.
  export --format md|jsonl|snapshot <OUT>   Markdown (a folder: one file per thread, one per
                            user's items), JSONL (the ingest format, then items; - for stdout)
                            or the binary snapshot: the whole store, every user's (it
                            refuses --user)
  import <PATH>             add what a Markdown folder, a JSONL file or a snapshot holds and the
                            store lacks (a snapshot into an empty store only)
  verify                    every damaged key and block of the store and what each held; exits
                            1 when anything is damaged; writes nothing
  salvage <SRC> <DST>       copy everything intact in the store SRC into a new store DST, and
                            list what was lost by id (SRC is only read)
  bench [...]               runs the memdag-bench binary beside this one (the benchmark; it
                            runs the core natively, not through the component)
  help                      this text

long-term memory (items learned from turns; every command takes --json):
  memory add --user U [--kind personal|procedural|tool|fact] [--subject S --relation R
             --object O] [--task T] [--tool T] [--importance X] [--source ID]... [--ttl 30d]
             <TEXT>         add an item (default kind personal): a near-duplicate corroborates
                            an active item, a contradiction supersedes it
  memory get <ID> [--user U]        one item with its versions and log
  memory update <ID> [--text T] [--subject S] [--relation R] [--object O] [--task T]
             [--tool T] [--importance X] [--ttl D|none]   a new version of the item
  memory delete <ID>        delete an item softly (status deleted, history kept)
  memory history <ID> [--user U]    every version of an item and of those it superseded
  memory list [--user U] [--kind K]... [--all] [--as-of TIME] [--since TIME --until TIME]
             [--sort created|updated|importance|uses] [--limit N --offset N]
                            the items, newest first (active only unless --all; every one
                            unless --limit); with --json one JSON array
  memory resolutions [--user U]     the log of what happened to items, newest first
  memory extract (--thread T | --user U | <ID>...) [--llm-cmd CMD]
                            learn items from turns: by the rules (English and Chinese), or
                            through the LLM
  purge [--expired] [--ended] [--blob-max-age 30d] [--unreferenced-blobs]
                            remove for good expired items (the default), superseded and
                            deleted ones, old or unreferenced tool outputs; rewrites the store

working memory, time and the entity graph:
  work show|history|clear --thread T [--user U]   U's working memory of a thread (no user's
                            without --user: working memory is per user and thread), its
                            changes, or forget it; the changes below take --user the same way
  work set|push|patch --thread T <FIELD> <VALUE>   change a field (VALUE is JSON, else a
                            string), e.g. work set --thread T goal \"ship it\"
  work pop|remove --thread T <FIELD>        drop a list's last element, or the field
  timeline [--user U | --thread T] [--since TIME --until TIME] [--offset-minutes M]
                            turns and items by day
  graph neighbors <ENTITY> [--depth N]      the entities within N edges (default 1)
  graph path <A> <B> [--max-depth N]        the shortest paths between two entities (4)
  graph export [<ENTITY>...]        the nodes and edges (all without entities)
  (--user U keeps timeline and graph to what U may see; --now TIME sets the clock of
  commands that take the time)

the context pipeline (one call before a turn, one after):
  prepare <FILE|-> --thread T --window N [--user U] [--threshold N] [--keep N]
             [--summary-tokens N] [--recall-tokens N] [--query TEXT] [--json]
                            the conversation's messages (a JSON array of {role, content,
                            toolCallId, toolCalls}; OpenAI's message shape is read too) with
                            oversized tool results cut (their full text kept, read back with
                            read-blob), the older part folded into the thread's running
                            summary (through --llm-cmd with the previous summary, else by the
                            rules), and the recall block; --json prints all of it
  finish <FILE|-> [--no-learn] [--no-cite] [--strict-parents] [--json]
                            add the turn (the JSON turn shape) with the parents it names and
                            the [id]s its output cites (unknown ones dropped and reported
                            unless --strict-parents), then learn items from it (through
                            --llm-cmd when given)
  read-blob <ID> [--from-line N] [--lines N] [--user U] [--json]
                            lines of a stored tool output, from the line a cut result's marker
                            names (default 1, at most 2000 lines)
  threads | users [--json]  every thread, or every user, newest activity first
  memory settings [--set JSON]      the long-term memory settings as JSON; --set changes the
                            names it gives (e.g. '{\"blobMaxAgeMs\": 86400000}')

tools for a model:
  tools [--format openai|anthropic|mcp]     the tools' JSON Schemas (default openai)
  call-tool <NAME> <JSON> (--user U | --all-users) [--thread T]  run one tool as a model
                            would, under user U; prints its JSON answer
  mcp (--user U | --all-users) [--thread T]   serve the tools (and the records as
                            resources) to an MCP client over stdio, every tool under user U;
                            serving every user's memory must be asked for with --all-users

  TIME is ISO 8601 (2024-05-08, 2024-05-08T13:56:00Z) or ms since the epoch; a duration is
  like 90s, 15m, 12h, 30d or 2w.

ranking options of search (defaults: the core's, shown here):
  --fusion weighted|rrf     how hybrid fuses BM25 and vectors (weighted)
  --vector-weight <W>       vector share of weighted fusion, 0 to 1 (0.5)
  --rrf-k <K>               the constant of reciprocal-rank fusion (60)
  --context <B>             share of its best thread neighbour's score a turn borrows,
                            0 to 1 (0.5; 0 turns thread context off)
  --thread-scope <G>        share of the best score in its thread a turn gains, 0 to 1
                            (0.25; 0 turns it off)
  --stopwords on|off        drop English function words from the BM25 query (on)
  --derived-keys on|off     match the derived keys: user, date forms of created_at (on)
  --field-weights <LIST>    BM25F weights, e.g. input=1,output=1,compact=1,steps=0.5,keys=1
                            (fields left out keep their default)

options:
  --store <DIR>             the store directory (default ./memdag-demo-store)
  --component <PATH>        the component file; else $MEMDAG_COMPONENT, next to this binary,
                            or <cargo target dir>/wasm32-wasip2/release/memdag_component.wasm
  --embed-cmd <CMD>         vectors from a program (sh -c): {\"texts\": [...]} on its stdin,
                            a JSON array of vectors on its stdout. Default: built-in embedder
  --llm-cmd <CMD>           an LLM as a program (sh -c): the prompt on its stdin, the answer
                            on its stdout. Default: the extractive compactor
  --cmd-timeout <SECS>      how long one --embed-cmd or --llm-cmd call may run before it is
                            stopped (default 120)
  --limits <JSON>           change limits for this run, e.g. '{\"maxFieldBytes\": 1048576}'
                            (names as `memdag limits` prints them)
  --key-file <PATH>         encrypt the store at rest with this key: 32 bytes, raw or as 64 hex
                            digits (e.g. `head -c 32 /dev/urandom > memdag.key`); else
                            $MEMDAG_KEY_FILE, or $MEMDAG_KEY as 64 hex digits. A store written
                            with a key opens only with it (error LOCKED otherwise)
";
