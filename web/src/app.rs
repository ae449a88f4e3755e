//! The components: thin views over [`Playground`]. Each reads the one signal and calls a
//! method on it; none holds logic of its own.

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use leptos::prelude::AnyView;
use placement_core::cluster::what_if::WhatIf;
use placement_core::explain::fixes::Fix;
use placement_playground::evaluation::{Cell, CellState, Editor, EditorError, Severity, WorkloadView};
use placement_playground::gallery::EXAMPLES;
use placement_playground::policy_panel;
use placement_playground::pools::PoolAction;
use placement_playground::share::{LinkSize, Route, WARN_FRAGMENT_CHARS};
use placement_playground::what_if::{CommandStatus, WhatIfView};

use crate::browser;
use crate::state::{BreakdownWanted, NodesView, Notice, Playground};
use placement_playground::breakdown::{CellBreakdown, FilterOutcome};

/// Editor line height in px; the CSS uses the same value.
pub const LINE_HEIGHT: f64 = 20.0;

type Pg = RwSignal<Playground>;

/// How long typing must pause before the fixes are re-checked.
pub const FIX_CHECK_DELAY: std::time::Duration = std::time::Duration::from_millis(250);

#[component]
pub fn App() -> impl IntoView {
    let (hash, search) = browser::location_parts();
    let route = Route::parse(&hash, &search);
    let pg: Pg = RwSignal::new(Playground::open(&route, browser::load_saved().as_deref(), Some(browser::now_ms)));

    // Opening another link in the same tab (a changed `#s=…` or `#example=…`) offers it; the
    // work on the page is replaced only when the user says so.
    let handle = window_event_listener(ev::hashchange, move |_| {
        let (hash, search) = browser::location_parts();
        let route = Route::parse(&hash, &search);
        if route.state.is_some() || route.example.is_some() {
            pg.update(|p| p.offer_link(&route));
        }
    });
    on_cleanup(move || handle.remove());

    // Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) outside the text fields, which keep their own undo.
    let keys = window_event_listener(ev::keydown, move |e| {
        let key = e.key().to_lowercase();
        if !(e.ctrl_key() || e.meta_key()) || browser::in_text_field(&e) || (key != "z" && key != "y") {
            return;
        }
        e.prevent_default();
        pg.update(|p| {
            if key == "y" || e.shift_key() {
                p.redo();
            } else {
                p.undo();
            }
        });
    });
    on_cleanup(move || keys.remove());

    // Autosave, half a second after the last change of what is saved, in this browser only
    // (the after-the-frame work, such as the fixes' re-checks, changes nothing saved and does
    // not put the save off).
    let pending = StoredValue::new(None::<TimeoutHandle>);
    let embedded = route.embed;
    let saved_state = Memo::new(move |_| pg.with(|p| (p.state.clone(), p.example.clone())));
    Effect::new(move |_| {
        saved_state.track();
        if embedded {
            return;
        }
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let save = move || pg.with_untracked(|p| browser::save(&p.saved_json()));
        pending.set_value(set_timeout_with_handle(save, std::time::Duration::from_millis(500)).ok());
    });

    // The fixes are re-checked (each a whole simulation again) after the edit has reached the
    // screen and typing has paused, so a keystroke waits only for the verdicts.
    let verify_timer = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let pending = pg.with(Playground::fixes_pending);
        if let Some(h) = verify_timer.get_value() {
            h.clear();
        }
        let verify = move || {
            pg.update(|p| {
                p.verify_fixes();
            })
        };
        let timer = pending.then(|| set_timeout_with_handle(verify, FIX_CHECK_DELAY).ok()).flatten();
        verify_timer.set_value(timer);
    });

    // The evaluations an edit replaced are freed after its frame is drawn (freeing one is
    // work the frame does not need). Untracked: freeing changes nothing shown.
    let retired_drop = StoredValue::new(false);
    Effect::new(move |_| {
        if !pg.with(Playground::has_retired) || retired_drop.get_value() {
            return;
        }
        retired_drop.set_value(true);
        request_animation_frame(move || {
            set_timeout(
                move || {
                    retired_drop.set_value(false);
                    pg.update_untracked(Playground::drop_retired);
                },
                std::time::Duration::ZERO,
            )
        });
    });

    // The strict checks of an edited text (unknown and duplicate fields, mistyped kinds: a
    // second scan of the text) run once typing pauses, as the fixes' re-checks do.
    let check_timer = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let pending = pg.with(Playground::input_pending);
        if let Some(h) = check_timer.get_value() {
            h.clear();
        }
        let check = move || {
            pg.update(|p| {
                p.check_input();
            })
        };
        let timer = pending.then(|| set_timeout_with_handle(check, FIX_CHECK_DELAY).ok()).flatten();
        check_timer.set_value(timer);
    });

    // The selected cell's breakdown is a simulation of its own: computed after the frame for
    // a new selection, and once typing pauses after an edit.
    let breakdown_timer = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let wanted = pg.with(Playground::breakdown_wanted);
        if let Some(h) = breakdown_timer.get_value() {
            h.clear();
        }
        let compute = move || {
            pg.update(|p| {
                p.compute_breakdown();
            })
        };
        let delay = match wanted {
            Some(BreakdownWanted::Now) => Some(std::time::Duration::ZERO),
            Some(BreakdownWanted::AfterEdit) => Some(FIX_CHECK_DELAY),
            None => None,
        };
        let timer = delay.and_then(|d| set_timeout_with_handle(compute, d).ok());
        breakdown_timer.set_value(timer);
    });

    let theme = RwSignal::new(browser::saved_theme());
    Effect::new(move |_| browser::apply_theme(&theme.get()));

    let embed = move || pg.with(|p| p.embed);
    view! {
        <div class="app" class:embed=embed>
            <Show when=move || !embed() fallback=move || view! { <EmbedHeader pg=pg/> }>
                <Header pg=pg theme=theme/>
            </Show>
            <NoticeLine pg=pg/>
            <Show when=move || !embed()>
                <EditBar pg=pg/>
            </Show>
            <main class="layout">
                <Show when=move || !embed()>
                    <Inputs pg=pg/>
                </Show>
                <Results pg=pg/>
            </main>
            <Show when=move || !embed()>
                <Footer pg=pg/>
            </Show>
        </div>
    }
}

#[component]
fn Header(pg: Pg, theme: RwSignal<String>) -> impl IntoView {
    let next_theme = move || match theme.get().as_str() {
        "auto" if browser::system_prefers_dark() => "light",
        "dark" => "light",
        _ => "dark",
    };
    let theme_label = move || {
        let dark = match theme.get().as_str() {
            "dark" => true,
            "light" => false,
            _ => browser::system_prefers_dark(),
        };
        if dark {
            "Light theme"
        } else {
            "Dark theme"
        }
    };
    view! {
        <header class="top">
            <div class="brand">
                <h1>"Placement" <span class="sub">" playground"</span></h1>
                <p class="tagline">
                    "Where Kubernetes puts every pod, why it cannot go anywhere else, and the smallest fix."
                </p>
            </div>
            <div class="toolbar">
                <ShareButton pg=pg/>
                <button
                    type="button"
                    class="ghost"
                    aria-label=move || format!("Switch to the {}", theme_label().to_lowercase())
                    on:click=move |_| theme.set(next_theme().to_string())
                >
                    {theme_label}
                </button>
            </div>
        </header>
        <p class="privacy">
            <strong>"Runs entirely in your browser."</strong>
            " Manifests never leave this page: the simulation is compiled to WebAssembly, the page makes no network requests after loading, and share links carry the state in the URL fragment, which browsers do not send to servers."
        </p>
        <Gallery pg=pg/>
    }
}

#[component]
fn EmbedHeader(pg: Pg) -> impl IntoView {
    let open_href = move || {
        let (fragment, _) = pg.with(|p| p.share_fragment(false));
        format!("{}#{fragment}", browser::base_url().split('?').next().unwrap_or_default())
    };
    view! {
        <header class="top compact">
            <h1>"Placement"</h1>
            <a class="open" href=open_href target="_blank" rel="noopener">"Open in the playground"</a>
        </header>
    }
}

#[component]
fn Gallery(pg: Pg) -> impl IntoView {
    view! {
        <nav class="gallery" aria-label="Examples">
            <h2 class="label">"Examples"</h2>
            <ul>
                {EXAMPLES
                    .iter()
                    .map(|e| {
                        let id = e.id;
                        let current = move || pg.with(|p| p.example.as_deref() == Some(id));
                        view! {
                            <li>
                                <button
                                    type="button"
                                    class="example"
                                    aria-pressed=move || current().to_string()
                                    title=e.summary()
                                    on:click=move |_| {
                                        pg.update(|p| {
                                            p.load_example(id);
                                        })
                                    }
                                >
                                    {e.title.replace('`', "")}
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        </nav>
    }
}

#[component]
fn ShareButton(pg: Pg) -> impl IntoView {
    let link = RwSignal::new(None::<(String, LinkSize, String)>);
    let share = move |_| {
        let (fragment, size) = pg.with_untracked(|p| p.share_fragment(false));
        if size == LinkSize::TooLong {
            pg.update(|p| {
                p.notice = Some(Notice {
                    text: "The state is too large for a link (over 2 MB). Trim the manifests to share them.".into(),
                    error: true,
                })
            });
            return;
        }
        browser::replace_fragment(&fragment);
        let url = format!("{}#{fragment}", browser::base_url());
        // The same state behind `embed&` (`Route::fragment`): pruning it again would simulate
        // twice more.
        let embed_fragment = format!("embed&{fragment}");
        let snippet = format!(
            "<iframe src=\"{}#{embed_fragment}\" title=\"Placement\" width=\"100%\" height=\"420\" style=\"border:0\" loading=\"lazy\"></iframe>",
            browser::base_url()
        );
        link.set(Some((url.clone(), size, snippet)));
        browser::copy_text(url, move |ok| {
            pg.update(|p| {
                p.notice = Some(Notice {
                    text: if ok {
                        "Link copied. It holds the whole state; nothing is stored on a server.".into()
                    } else {
                        "The link is in the address bar and below; copy it from there.".into()
                    },
                    error: false,
                })
            })
        });
    };
    view! {
        <button type="button" class="primary" on:click=share>"Share link"</button>
        <Show when=move || link.with(Option::is_some)>
            <div class="share-box" role="group" aria-label="Share link">
                {move || {
                    link.get()
                        .map(|(url, size, snippet)| {
                            let len = url.len();
                            view! {
                                <label>
                                    "Link (" {len} " characters)"
                                    <input type="text" readonly class="share-url" prop:value=url/>
                                </label>
                                {(size == LinkSize::Long)
                                    .then(|| {
                                        view! {
                                            <p class="warn" role="alert">
                                                {format!(
                                                    "This link is over {WARN_FRAGMENT_CHARS} characters: some chat tools, issue trackers and proxies cut long links. Browsers open it fine.",
                                                )}
                                            </p>
                                        }
                                    })}
                                <label>
                                    "Embed in docs (read-only view)"
                                    <textarea readonly class="snippet" rows="3" prop:value=snippet></textarea>
                                </label>
                                <button type="button" class="ghost" on:click=move |_| link.set(None)>
                                    "Close"
                                </button>
                            }
                        })
                }}
            </div>
        </Show>
    }
}

#[component]
fn NoticeLine(pg: Pg) -> impl IntoView {
    view! {
        <div class="notice" role="status" aria-live="polite">
            {move || {
                pg.with(|p| p.notice.clone())
                    .map(|n| {
                        view! {
                            <p class:error=n.error>
                                {n.text}
                                <button
                                    type="button"
                                    class="link"
                                    aria-label="Dismiss"
                                    on:click=move |_| pg.update(|p| p.notice = None)
                                >
                                    "×"
                                </button>
                            </p>
                        }
                    })
            }}
        </div>
    }
}

/// Undo and redo, where the work is kept, a link waiting for an answer, and the lines the
/// last whole-text edit changed.
#[component]
fn EditBar(pg: Pg) -> impl IntoView {
    // A memo: the diff is redrawn when it changes, not on every click (and stays folded).
    let diffs = Memo::new(move |_| pg.with(|p| p.diffs.clone()));
    let can_undo = move || pg.with(|p| p.history.can_undo());
    let can_redo = move || pg.with(|p| p.history.can_redo());
    view! {
        <div class="edit-bar">
            <button type="button" class="ghost small" disabled=move || !can_undo() title="Ctrl+Z" on:click=move |_| {
                pg.update(|p| {
                    p.undo();
                })
            }>"Undo"</button>
            <button type="button" class="ghost small" disabled=move || !can_redo() title="Ctrl+Shift+Z" on:click=move |_| {
                pg.update(|p| {
                    p.redo();
                })
            }>"Redo"</button>
            <span class="saved-note">"Your work is autosaved in this browser only (localStorage); nothing is sent anywhere."</span>
        </div>
        <Show when=move || pg.with(|p| p.conflict.is_some())>
            <p class="banner warn conflict" role="alert">
                "This link holds a different state than the work saved in this browser. "
                <button type="button" class="link" on:click=move |_| pg.update(Playground::open_conflict)>
                    "Open the shared state"
                </button>
                " / "
                <button type="button" class="link" on:click=move |_| pg.update(Playground::keep_local)>
                    "Keep your local work"
                </button>
            </p>
        </Show>
        {move || {
            let diffs = diffs.get();
            (!diffs.is_empty())
                .then(|| {
                    view! {
                        <details class="diff" open>
                            <summary>
                                {diffs
                                    .iter()
                                    .map(|d| match &d.rewritten {
                                        None => format!("{}: +{} −{} lines", d.editor, d.added, d.removed),
                                        Some(why) => format!("{}: +{} −{} lines (document rewritten whole: {why})", d.editor, d.added, d.removed),
                                    })
                                    .collect::<Vec<_>>()
                                    .join("; ")}
                                <button type="button" class="link" aria-label="Close the diff" on:click=move |_| pg.update(|p| p.diffs.clear())>
                                    "×"
                                </button>
                            </summary>
                            {diffs
                                .into_iter()
                                .map(|d| {
                                    view! {
                                        <pre class="diff-lines" tabindex="0" aria-label=format!("Changes in {}", d.editor)>
                                            {d.lines
                                                .into_iter()
                                                .map(|l| {
                                                    let class = match l.as_bytes().first() {
                                                        Some(b'+') => "add",
                                                        Some(b'-') => "del",
                                                        Some(b'@') => "hunk",
                                                        _ => "ctx",
                                                    };
                                                    view! { <span class=class>{l} "\n"</span> }
                                                })
                                                .collect_view()}
                                        </pre>
                                    }
                                })
                                .collect_view()}
                        </details>
                    }
                })
        }}
    }
}

/// Reads `files` and opens them (see [`Playground::open_files`]).
fn open_files(pg: Pg, files: &web_sys::FileList) {
    let files = browser::files_of(files);
    leptos::task::spawn_local(async move {
        match browser::read_files(files).await {
            Ok(files) => pg.update(|p| {
                let _ = p.open_files(&files);
            }),
            Err(e) => {
                pg.update(|p| p.notice = Some(Notice { text: format!("Could not open the files: {e}"), error: true }))
            }
        }
    });
}

/// "Open files…": a file picker (several files at once), next to the hint that files can be
/// dropped on the editors.
#[component]
fn OpenFiles(pg: Pg) -> impl IntoView {
    let input = NodeRef::<html::Input>::new();
    view! {
        <div class="file-bar">
            <button
                type="button"
                class="ghost"
                on:click=move |_| {
                    if let Some(i) = input.get_untracked() {
                        i.click();
                    }
                }
            >
                "Open files…"
            </button>
            <input
                type="file"
                id="open-files"
                class="visually-hidden"
                multiple=true
                accept=".yaml,.yml,.json,.txt,text/yaml,application/json"
                node_ref=input
                aria-label="Open YAML or JSON files"
                on:change=move |e| {
                    let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
                    if let Some(files) = el.files().filter(|f| f.length() > 0) {
                        open_files(pg, &files);
                    }
                    // The same file picked again is a change too.
                    el.set_value("");
                }
            />
            <span class="hint">"or drop files here: Nodes go to the nodes editor, the rest to Workloads."</span>
        </div>
    }
}

#[component]
fn Inputs(pg: Pg) -> impl IntoView {
    // A memo: the nodes panel is rebuilt when the tab changes, not on every edit (the pool
    // cards and the command field keep what is typed in them).
    let nodes_view = Memo::new(move |_| pg.with(|p| p.nodes_view));
    let nodes_view = move || nodes_view.get();
    let set_view = move |v: NodesView| pg.update(|p| p.nodes_view = v);
    // Files dropped anywhere on the inputs are opened in place of the editors' texts.
    let on_drop = move |e: ev::DragEvent| {
        e.prevent_default();
        if let Some(files) = e.data_transfer().and_then(|d| d.files()).filter(|f| f.length() > 0) {
            open_files(pg, &files);
        }
    };
    view! {
        <section
            class="inputs"
            aria-label="Manifests"
            on:dragover=move |e: ev::DragEvent| e.prevent_default()
            on:drop=on_drop
        >
            <OpenFiles pg=pg/>
            <Options pg=pg/>
            <Show when=move || pg.with(|p| p.eval.misplaced > 0)>
                <p class="banner">
                    {move || pg.with(|p| p.eval.misplaced)}
                    " document(s) are in the other editor. They are simulated where they are; "
                    <button type="button" class="link" on:click=move |_| pg.update(Playground::sort_documents)>
                        "move them to their editors"
                    </button>
                    "."
                </p>
            </Show>
            <YamlEditor
                pg=pg
                editor=Editor::Workloads
                id="workloads"
                label="Workloads"
                hint="Pods, Deployments, DaemonSets, StatefulSets, Jobs, CronJobs: paste `kubectl get ds,deploy -A -o yaml`, or a whole cluster snapshot (`kubectl get nodes,pods,deploy,rs,ds -A -o yaml`), as is."
            />
            <div class="nodes-head">
                <h2 id="nodes-label">"Nodes"</h2>
                <div class="tabs" role="tablist" aria-label="Nodes as">
                    <button
                        type="button"
                        role="tab"
                        id="tab-yaml"
                        aria-controls="nodes-panel"
                        aria-selected=move || (nodes_view() == NodesView::Yaml).to_string()
                        on:click=move |_| set_view(NodesView::Yaml)
                    >
                        "YAML"
                    </button>
                    <button
                        type="button"
                        role="tab"
                        id="tab-table"
                        aria-controls="nodes-panel"
                        aria-selected=move || (nodes_view() == NodesView::Table).to_string()
                        on:click=move |_| set_view(NodesView::Table)
                    >
                        "Table"
                    </button>
                    <button
                        type="button"
                        role="tab"
                        id="tab-pools"
                        aria-controls="nodes-panel"
                        aria-selected=move || (nodes_view() == NodesView::Pools).to_string()
                        on:click=move |_| set_view(NodesView::Pools)
                    >
                        "Pools"
                    </button>
                </div>
            </div>
            <div id="nodes-panel" role="tabpanel">
                <Show when=move || pg.with(Playground::nodes_look_like_describe)>
                    <p class="banner">
                        "This looks like `kubectl describe node` output. "
                        <button type="button" class="link" on:click=move |_| pg.update(Playground::convert_describe)>
                            "Convert it to Node YAML"
                        </button>
                    </p>
                </Show>
                {move || match nodes_view() {
                    NodesView::Yaml => {
                        view! {
                            <YamlEditor
                                pg=pg
                                editor=Editor::Nodes
                                id="nodes"
                                label="Nodes YAML"
                                hint="Paste `kubectl get nodes -o yaml`, or `kubectl describe node` output."
                            />
                        }
                            .into_any()
                    }
                    NodesView::Table => view! { <NodeTable pg=pg/> }.into_any(),
                    NodesView::Pools => view! { <PoolsView pg=pg/> }.into_any(),
                }}
            </div>
        </section>
    }
}

#[component]
fn Options(pg: Pg) -> impl IntoView {
    use placement_core::model::version::{KubeVersion, ReleaseSource};
    let versions: Vec<String> =
        (KubeVersion::OLDEST.minor..=KubeVersion::LATEST.minor).rev().map(|m| format!("1.{m}")).collect();
    // An empty setting: the release the pasted Nodes' kubelets show, else the default (as the
    // CLI without --kube-version); it keeps share links short.
    let chosen = move || {
        pg.with(|p| {
            p.eval.report.as_ref().map_or_else(
                || format!("default: {}", KubeVersion::DEFAULT),
                |r| match &r.kube_version_source {
                    ReleaseSource::Nodes { kubelet_version } => {
                        format!("from the nodes: {} (newest kubelet {kubelet_version})", r.kube_version)
                    }
                    _ => format!("default: {}", r.kube_version),
                },
            )
        })
    };
    view! {
        <div class="options">
            <label>
                "Kubernetes "
                <select
                    aria-label="Kubernetes version whose wording to reproduce"
                    on:change=move |e| pg.update(|p| p.set_kube_version(event_target_value(&e)))
                    prop:value=move || pg.with(|p| p.state.kube_version.clone())
                >
                    <option value="">{chosen}</option>
                    {versions.into_iter().map(|v| view! { <option value=v.clone()>{v.clone()}</option> }).collect_view()}
                </select>
            </label>
            <Show when=move || pg.with(|p| p.eval.report.as_ref().is_some_and(|r| r.kube_version_note.is_some()))>
                <span class="release-note" role="note">
                    {move || pg.with(|p| p.eval.report.as_ref().and_then(|r| r.kube_version_note.clone()).unwrap_or_default())}
                </span>
            </Show>
            <label class="check">
                <input
                    type="checkbox"
                    prop:checked=move || pg.with(|p| p.state.admission_defaults)
                    on:change=move |e| {
                        let on = e
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                            .map(|i| i.checked())
                            .unwrap_or(true);
                        pg.update(|p| p.set_admission_defaults(on))
                    }
                />
                " Admission defaults (DefaultTolerationSeconds)"
            </label>
        </div>
    }
}

/// A textarea with line numbers and error markers at the failing lines.
#[component]
fn YamlEditor(pg: Pg, editor: Editor, id: &'static str, label: &'static str, hint: &'static str) -> impl IntoView {
    let textarea = NodeRef::<html::Textarea>::new();
    let scroll = RwSignal::new((0i32, 0i32));
    // A memo: the textarea is written only when its own text changed (not on an edit of the
    // other editor, nor on a click elsewhere), which at 13,000 lines is a relayout saved. It
    // keeps its previous text when that is unchanged rather than copying the text to compare.
    let text = Memo::new_owning(move |prev: Option<String>| {
        pg.with(|p| {
            let now = match editor {
                Editor::Nodes => &p.state.nodes,
                _ => &p.state.workloads,
            };
            match prev {
                Some(prev) if prev == *now => (prev, false),
                _ => (now.clone(), true),
            }
        })
    });
    // The textarea's text as last typed in it or written to it: the playground's text is
    // written only when it differs (an undo, Apply, a table edit, an example), not after every
    // keystroke, which would copy the whole text into the page again (12,000 lines at 13k).
    let shown = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        let Some(area) = textarea.get() else { return };
        text.with(|t| {
            if shown.with_value(|shown| shown.as_deref() != Some(t.as_str())) {
                area.set_value(t);
                shown.set_value(Some(t.clone()));
            }
        })
    });
    let line_count = Memo::new(move |_| {
        pg.with(|p| match editor {
            Editor::Nodes => p.state.nodes.lines().count(),
            _ => p.state.workloads.lines().count(),
        })
        .max(1)
    });
    // Errors first, then warnings (unknown or duplicate fields): both marked at their lines.
    let errors = Memo::new(move |_| pg.with(|p| p.diagnostics_in(editor)));
    let has_errors = move || errors.with(|d| d.iter().any(|e| e.severity == Severity::Error));
    // Lines holding a tab: marked in the gutter (`→`) and with a strip, since a tab looks like
    // spaces in the textarea and YAML does not allow it in indentation.
    let tabs = Memo::new(move |_| text.with(|t| placement_playground::evaluation::tab_lines(t)));
    let gutter = move || {
        tabs.with(|tabs| {
            let mut tabs = tabs.iter().copied().peekable();
            (1..=line_count.get())
                .map(|n| {
                    let tab = tabs.next_if_eq(&n).is_some();
                    if tab {
                        format!("→ {n}")
                    } else {
                        n.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
    };
    let error_id = format!("{id}-errors");
    let hint_id = format!("{id}-hint");
    let described = format!("{hint_id} {error_id}");
    let jump = move |line: usize| {
        if let Some(t) = textarea.get_untracked() {
            let el: &web_sys::HtmlTextAreaElement = &t;
            browser::focus_line(el, line, LINE_HEIGHT);
        }
    };
    view! {
        <div class="editor-block">
            <label class="editor-label" for=format!("{id}-text")>
                {label}
            </label>
            <p class="hint" id=hint_id>{hint}</p>
            <div class="editor" class:invalid=has_errors>
                <pre
                    class="gutter"
                    aria-hidden="true"
                    style:transform=move || format!("translateY({}px)", -scroll.get().0)
                >
                    {gutter}
                </pre>
                <div class="marks" aria-hidden="true">
                    {move || {
                        errors
                            .get()
                            .into_iter()
                            .filter_map(|e| e.line.map(|l| (l, e.message, e.severity == Severity::Warning)))
                            .map(|(line, message, warning)| {
                                let top = (line as f64 - 1.0) * LINE_HEIGHT + 8.0 - f64::from(scroll.get().0);
                                let title = message.clone();
                                view! {
                                    <div class="mark" class:warning=warning style:top=format!("{top}px") title=title>
                                        <span class="mark-msg">{message}</span>
                                    </div>
                                }
                            })
                            .collect_view()
                    }}
                    {move || {
                        tabs.get()
                            .into_iter()
                            .map(|line| {
                                let top = (line as f64 - 1.0) * LINE_HEIGHT + 8.0 - f64::from(scroll.get().0);
                                view! {
                                    <div
                                        class="mark tab"
                                        data-line=line
                                        style:top=format!("{top}px")
                                        title="This line holds a tab character: YAML indentation must be spaces"
                                    ></div>
                                }
                            })
                            .collect_view()
                    }}
                </div>
                <textarea
                    id=format!("{id}-text")
                    node_ref=textarea
                    class="code"
                    spellcheck="false"
                    autocomplete="off"
                    autocapitalize="off"
                    wrap="off"
                    aria-describedby=described
                    aria-invalid=move || has_errors().to_string()
                    on:input=move |e| {
                        let v = event_target_value(&e);
                        shown.set_value(Some(v.clone()));
                        pg.update(|p| match editor {
                            Editor::Nodes => p.set_nodes(v),
                            _ => p.set_workloads(v),
                        })
                    }
                    on:change=move |_| pg.update_untracked(|p| p.history.seal())
                    on:scroll=move |e| {
                        if let Some(t) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
                            scroll.set((t.scroll_top(), t.scroll_left()));
                        }
                    }
                ></textarea>
            </div>
            {move || {
                pg.with(|p| p.input_pending_in(editor))
                    .then(|| view! { <p class="hint input-checking">"Checking fields… (unknown and duplicate fields, once typing pauses)"</p> })
            }}
            <ul class="errors" id=error_id aria-live="polite">
                {move || {
                    errors
                        .get()
                        .into_iter()
                        .map(|e: EditorError| {
                            let line = e.line;
                            let warning = e.severity == Severity::Warning;
                            let where_ = match (e.line, &e.field) {
                                (Some(l), Some(f)) => format!("line {l}, {f}"),
                                (Some(l), None) => format!("line {l}"),
                                (None, Some(f)) => f.clone(),
                                (None, None) => String::new(),
                            };
                            view! {
                                <li class:warning=warning>
                                    <button
                                        type="button"
                                        class="error-jump"
                                        class:warning=warning
                                        disabled=line.is_none()
                                        on:click=move |_| {
                                            if let Some(l) = line {
                                                jump(l)
                                            }
                                        }
                                    >
                                        <span class="where">{where_}</span>
                                        " "
                                        {warning.then_some("warning: ")}
                                        {e.message}
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
        </div>
    }
}

#[component]
fn NodeTable(pg: Pg) -> impl IntoView {
    // A memo: the rows (and what is being typed in a cell, not yet written back) are rebuilt
    // only when the rows change, not when after-the-frame work updates something else.
    let rows = Memo::new(move |_| pg.with(Playground::node_rows));
    let edit = move |row: usize, column: &'static str| {
        move |e: ev::Event| {
            let v = event_target_value(&e);
            pg.update(|p| p.edit_node_cell(row, column, &v))
        }
    };
    view! {
        <div class="table-wrap" role="region" aria-label="Nodes table" tabindex="0">
            <table class="node-table">
                <caption class="visually-hidden">
                    "Nodes: edits are written to the nodes YAML when a cell loses focus"
                </caption>
                <thead>
                    <tr>
                        <th scope="col">"Name"</th>
                        <th scope="col">"Labels"</th>
                        <th scope="col">"Taints (key=value:Effect)"</th>
                        <th scope="col">"Allocatable"</th>
                        <th scope="col">"Cordoned"</th>
                        <th scope="col"><span class="visually-hidden">"Remove"</span></th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        rows.get()
                            .into_iter()
                            .enumerate()
                            .map(|(i, r)| {
                                let name = r.name.clone();
                                view! {
                                    <tr>
                                        <td>
                                            <input
                                                type="text"
                                                aria-label=format!("Name of node {}", i + 1)
                                                prop:value=r.name.clone()
                                                on:change=edit(i, "name")
                                            />
                                        </td>
                                        <td>
                                            <input
                                                type="text"
                                                aria-label=format!("Labels of {name}")
                                                prop:value=r.labels.clone()
                                                on:change=edit(i, "labels")
                                            />
                                        </td>
                                        <td>
                                            <input
                                                type="text"
                                                aria-label=format!("Taints of {name}")
                                                placeholder="key=value:NoSchedule"
                                                prop:value=r.taints.clone()
                                                on:change=edit(i, "taints")
                                            />
                                        </td>
                                        <td>
                                            <input
                                                type="text"
                                                aria-label=format!("Allocatable of {name}")
                                                prop:value=r.allocatable.clone()
                                                on:change=edit(i, "allocatable")
                                            />
                                        </td>
                                        <td class="center">
                                            <input
                                                type="checkbox"
                                                aria-label=format!("{name} cordoned")
                                                prop:checked=r.cordoned
                                                on:change=move |e: ev::Event| {
                                                    let on = e
                                                        .target()
                                                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                                                        .map(|i| i.checked())
                                                        .unwrap_or(false);
                                                    pg.update(|p| p.edit_node_cell(i, "cordoned", if on { "true" } else { "false" }))
                                                }
                                            />
                                        </td>
                                        <td>
                                            <button
                                                type="button"
                                                class="ghost small"
                                                aria-label=format!("Remove {name}")
                                                on:click=move |_| pg.update(|p| p.remove_node_row(i))
                                            >
                                                "Remove"
                                            </button>
                                        </td>
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
            <p class="row-error" role="alert">{move || pg.with(|p| p.row_error.clone())}</p>
            <button type="button" class="ghost" on:click=move |_| pg.update(Playground::add_node_row)>
                "Add node"
            </button>
        </div>
    }
}

/// The nodes by pool, with the pool actions: each adds a what-if command, never an edit of
/// the nodes' text.
#[component]
fn PoolsView(pg: Pg) -> impl IntoView {
    let keys = Memo::new(move |_| pg.with(|p| p.shown().label_keys.clone()));
    let chosen = move || pg.with(|p| p.state.pool_label.clone());
    let names =
        Memo::new(move |_| pg.with(|p| p.shown().pools.iter().map(|pool| pool.name.clone()).collect::<Vec<_>>()));
    view! {
        <div class="pools" role="region" aria-label="Node pools">
            <p class="hint">
                "Each action adds a what-if command; the YAML is not changed. The results then show the cluster after the commands, with a before/after panel."
            </p>
            <div class="options">
                <label>
                    "Group by "
                    <select
                        aria-label="Pool label"
                        on:change=move |e| {
                            let key = event_target_value(&e);
                            pg.update(|p| p.set_pool_label(key))
                        }
                    >
                        <option value="" selected=move || chosen().is_empty()>
                            "pool (from the clouds' node labels)"
                        </option>
                        {move || {
                            keys.get()
                                .into_iter()
                                .map(|k| {
                                    let selected = k == chosen();
                                    view! { <option value=k.clone() selected=selected>{k.clone()}</option> }
                                })
                                .collect_view()
                        }}
                    </select>
                </label>
            </div>
            <ul class="pool-list">
                <For each=move || names.get() key=|name| name.clone() let:name>
                    <PoolCard pg=pg name=name/>
                </For>
            </ul>
            <AddCommand pg=pg/>
        </div>
    }
}

#[component]
fn PoolCard(pg: Pg, name: String) -> impl IntoView {
    let pool = {
        let name = name.clone();
        Memo::new(move |_| pg.with(|p| p.shown().pools.iter().find(|pool| pool.name == name).cloned()))
    };
    let ignore_daemonsets = RwSignal::new(true);
    let delete_emptydir_data = RwSignal::new(false);
    let force = RwSignal::new(false);
    let taint = RwSignal::new(String::new());
    let count = RwSignal::new(1u32);
    // One button type for every action (each `view!` of its own costs page size).
    let button = {
        let name = name.clone();
        move |label: &'static str, class: &'static str, title: &'static str| {
            let name = name.clone();
            let aria = format!("{label} pool {name}");
            let click = move |_| {
                let action = match label {
                    "Cordon" => PoolAction::Cordon,
                    "Uncordon" => PoolAction::Uncordon,
                    "Remove" => PoolAction::Remove,
                    "Drain" => PoolAction::Drain {
                        ignore_daemonsets: ignore_daemonsets.get_untracked(),
                        delete_emptydir_data: delete_emptydir_data.get_untracked(),
                        force: force.get_untracked(),
                    },
                    "Taint" => PoolAction::Taint(taint.get_untracked()),
                    _ => PoolAction::Scale(count.get_untracked()),
                };
                pg.update(|p| {
                    let _ = p.add_pool_command(&name, &action);
                })
            };
            view! {
                <button type="button" class=class aria-label=aria title=title on:click=click>
                    {if label == "Scale" { "Scale +" } else { label }}
                </button>
            }
        }
    };
    let flag = move |signal: RwSignal<bool>, flag: &'static str| {
        view! {
            <label class="check">
                <input
                    type="checkbox"
                    prop:checked=move || signal.get()
                    on:change=move |e| {
                        let on = e
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                            .map(|i| i.checked())
                            .unwrap_or(false);
                        signal.set(on)
                    }
                />
                <code>{flag}</code>
            </label>
        }
    };
    let n = name.clone();
    view! {
        <li class="pool" data-pool=name.clone()>
            {move || {
                pool.get()
                    .map(|pool| {
                        let summary = format!(
                            "{} node(s){}",
                            pool.nodes.len(),
                            match pool.cordoned() {
                                0 => String::new(),
                                c => format!(", {c} cordoned"),
                            },
                        );
                        let nodes = pool
                            .nodes
                            .iter()
                            .map(|node| {
                                let mut text = node.name.clone();
                                if node.cordoned {
                                    text.push_str(" (cordoned)");
                                }
                                if !node.taints.is_empty() {
                                    text.push_str(&format!(" {}", node.taints.join(", ")));
                                }
                                view! { <li class="mono">{text}</li> }
                            })
                            .collect_view();
                        view! {
                            <h3>{pool.name.clone()} " " <span class="badge">{summary}</span></h3>
                            <p class="selection">"Selected by " <code>{pool.selection_text()}</code></p>
                            <ul class="pool-nodes">{nodes}</ul>
                        }
                    })
            }}
            <div class="actions">
                {button("Cordon", "ghost small", "kubectl cordon")}
                {button("Uncordon", "ghost small", "kubectl uncordon")}
                {button("Remove", "ghost small danger", "kubectl delete nodes: the nodes and the pods bound to them")}
            </div>
            <div class="actions drain" role="group" aria-label=format!("Drain options for pool {n}")>
                {button("Drain", "ghost small", "kubectl drain: cordon, then evict the pods kubectl would")}
                {flag(ignore_daemonsets, "--ignore-daemonsets")}
                {flag(delete_emptydir_data, "--delete-emptydir-data")}
                {flag(force, "--force")}
            </div>
            <div class="actions">
                <input
                    type="text"
                    class="taint"
                    aria-label=format!("Taint for pool {n}")
                    placeholder="key=value:NoExecute"
                    spellcheck="false"
                    prop:value=move || taint.get()
                    on:input=move |e| taint.set(event_target_value(&e))
                />
                {button("Taint", "ghost small", "kubectl taint nodes")}
            </div>
            <div class="actions">
                {button("Scale", "ghost small", "add-nodes: copies of the pool's first node (labels, taints, allocatable)")}
                <input
                    type="number"
                    class="count"
                    min="1"
                    max="1000"
                    aria-label=format!("Nodes to add to pool {n}")
                    prop:value=move || count.get().to_string()
                    on:change=move |e| count.set(event_target_value(&e).trim().parse().unwrap_or(1).clamp(1, 1000))
                />
                <span class="hint">"node(s) like the first"</span>
            </div>
        </li>
    }
}

/// A what-if command typed as kubectl takes it.
#[component]
fn AddCommand(pg: Pg) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let add = move || {
        let line = text.get_untracked();
        // Checked before the state is touched, so a refused line re-renders nothing else.
        match line.trim().parse::<WhatIf>() {
            Ok(_) => {
                pg.update(|p| {
                    let _ = p.add_what_if(&line);
                });
                text.set(String::new());
                error.set(None);
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    };
    view! {
        <form
            class="add-command"
            on:submit=move |e: ev::SubmitEvent| {
                e.prevent_default();
                add();
            }
        >
            <label for="what-if-text">"Or type a command"</label>
            <div class="actions">
                <input
                    id="what-if-text"
                    type="text"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder="kubectl label nodes -l agentpool=user tier=web"
                    aria-describedby="what-if-error"
                    prop:value=move || text.get()
                    on:input=move |e| text.set(event_target_value(&e))
                />
                <button type="submit" class="ghost small">"Add"</button>
            </div>
            <p id="what-if-error" class="row-error" role="alert">{move || error.get()}</p>
        </form>
    }
}

/// The pending what-if commands with what kubectl prints for each, and what they change.
#[component]
fn WhatIfPanel(pg: Pg) -> impl IntoView {
    move || {
        pg.with(|p| {
            let Some(view) = p.shown().what_if.clone() else { return ().into_any() };
            what_if_panel(pg, view, p.embed)
        })
    }
}

/// A table of text cells, with one type for every such table (each `view!` of its own is
/// compiled separately into the page's wasm). `numeric` marks right-aligned columns; a cell's
/// `true` marks it (a changed counter, a lost pool).
fn text_table(
    label: String,
    class: &'static str,
    head: &'static [&'static str],
    numeric: &'static [usize],
    rows: Vec<Vec<(String, bool)>>,
) -> AnyView {
    view! {
        <div class="table-wrap" role="region" aria-label=label tabindex="0">
            <table class=class>
                <thead>
                    <tr>
                        {head
                            .iter()
                            .enumerate()
                            .map(|(i, h)| view! { <th scope="col" class:num=numeric.contains(&i)>{*h}</th> })
                            .collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|row| {
                            view! {
                                <tr>
                                    {row
                                        .into_iter()
                                        .enumerate()
                                        .map(|(i, (text, marked))| {
                                            view! { <td class:num=numeric.contains(&i) class:changed=marked>{text}</td> }
                                        })
                                        .collect_view()}
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
    .into_any()
}

fn what_if_panel(pg: Pg, w: WhatIfView, embed: bool) -> AnyView {
    let total = w.commands.len();
    let applied = w.applied();
    let nothing = w.no_changes();
    let commands = w
        .commands
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let (class, lines, note, notes) = match c.status {
                CommandStatus::Applied { output, refused, notes } => ("applied", output.join("\n"), refused, notes),
                CommandStatus::Failed(why) => ("failed", String::new(), Some(why), Vec::new()),
                CommandStatus::NotApplied => (
                    "not-applied",
                    String::new(),
                    Some("Not applied: a command before it failed.".to_string()),
                    Vec::new(),
                ),
            };
            let no_notes = notes.is_empty();
            let notes = notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view();
            let (no_lines, no_note) = (lines.is_empty(), note.is_none());
            view! {
                <li class=format!("command {class}")>
                    <div class="command-line">
                        <code>"$ " {c.text.clone()}</code>
                        <button
                            type="button"
                            class="ghost small"
                            hidden=embed
                            aria-label=format!("Remove command {}: {}", i + 1, c.text)
                            on:click=move |_| pg.update(|p| p.remove_what_if(i))
                        >
                            "Remove"
                        </button>
                    </div>
                    <pre class="output" hidden=no_lines>{lines}</pre>
                    <pre class="output refused" role="alert" hidden=no_note>{note}</pre>
                    <ul class="command-notes" hidden=no_notes>{notes}</ul>
                </li>
            }
        })
        .collect_view();
    // Every section is a text table: one view type for all of them.
    let mut sections: Vec<(&'static str, AnyView)> = Vec::new();
    if !w.evicted.is_empty() {
        let rows = w
            .evicted
            .into_iter()
            .map(|e| vec![(e.pod, false), (e.node, false), (e.cause, false), (e.when, false), (e.replaced_by, false)])
            .collect();
        let head = &["POD", "NODE", "CAUSE", "WHEN", "REPLACED BY"];
        sections.push(("Evicted pods", text_table("Evicted pods".into(), "evicted", head, &[], rows)));
    }
    if !w.coverage.is_empty() {
        let rows = w
            .coverage
            .into_iter()
            .map(|c| {
                let mut change = Vec::new();
                if !c.lost.is_empty() {
                    change.push(format!("loses {}", c.lost.join(", ")));
                }
                if !c.gained.is_empty() {
                    change.push(format!("gains {}", c.gained.join(", ")));
                }
                let lost = !c.lost.is_empty();
                vec![
                    (c.daemon_set, false),
                    (c.pool, false),
                    (c.before, false),
                    (c.after, lost),
                    (change.join("; "), lost),
                ]
            })
            .collect();
        let head = &["DAEMONSET", "POOL", "BEFORE", "AFTER", "CHANGE"];
        sections.push((
            "DaemonSet coverage per pool",
            text_table("DaemonSet coverage".into(), "coverage", head, &[2, 3], rows),
        ));
    }
    for (title, class, moves) in
        [("Now pending", "now-pending", w.now_pending), ("Now scheduled", "now-scheduled", w.now_scheduled)]
    {
        if moves.is_empty() {
            continue;
        }
        let rows = moves
            .into_iter()
            .map(|m| vec![(m.workload, false), (m.pod, false), (m.node.or(m.message).unwrap_or_default(), false)])
            .collect();
        sections.push((title, text_table(title.into(), class, &["WORKLOAD", "POD", "NODE OR WHY NOT"], &[], rows)));
    }
    if !w.workloads.is_empty() {
        let rows = w
            .workloads
            .into_iter()
            .map(|row| {
                let mut cells = vec![(row.workload, false)];
                cells.extend(row.counters.iter().map(|c| (c.text(), c.changed())));
                cells.push((row.new_pods.join(", "), false));
                cells
            })
            .collect();
        let head = &["WORKLOAD", "DESIRED", "CURRENT", "SCHEDULED", "PENDING", "NEW PODS"];
        sections.push((
            "Workloads (before → after)",
            text_table("Workload changes".into(), "workload-changes", head, &[1, 2, 3, 4], rows),
        ));
    }
    let sections = sections.into_iter().map(|(title, table)| view! { <h3>{title}</h3> {table} }).collect_view();
    view! {
        <div class="card what-if" role="region" aria-labelledby="what-if-title">
            <h2 id="what-if-title">"What-if: before → after"</h2>
            <p class="hint">
                {format!(
                    "The results below show the cluster after {applied} of {total} command(s), applied in order to the input; nothing is run anywhere. Remove a command to undo it.",
                )}
            </p>
            <ol class="commands">{commands}</ol>
            <button type="button" class="ghost small" hidden=embed on:click=move |_| pg.update(Playground::clear_what_if)>
                "Clear all commands"
            </button>
            <p class="hint" hidden=!nothing>"No pod moves, and no counter or coverage changes."</p>
            {sections}
        </div>
    }
    .into_any()
}

#[component]
fn Results(pg: Pg) -> impl IntoView {
    view! {
        <section
            id="results"
            tabindex="-1"
            class="results"
            aria-label="Placement"
            class:stale=move || pg.with(Playground::stale)
            data-eval-ms=move || pg.with(|p| format!("{:.2}", p.eval_ms))
            data-verify-ms=move || pg.with(|p| format!("{:.2}", p.verify_ms))
            data-fixes=move || if pg.with(Playground::fixes_pending) { "checking" } else { "verified" }
        >
            <Show when=move || pg.with(Playground::stale)>
                <p class="banner warn" role="alert">
                    "The manifests have errors (marked in the editors). Showing the last valid result."
                </p>
            </Show>
            <WhatIfPanel pg=pg/>
            <Summary pg=pg/>
            <Show when=move || !pg.with(|p| p.embed)>
                <Downloads pg=pg/>
            </Show>
            <Matrix pg=pg/>
            <Show when=move || !pg.with(|p| p.embed)>
                <CellDetail pg=pg/>
            </Show>
            <Pending pg=pg/>
            <Show when=move || !pg.with(|p| p.embed)>
                <Pods pg=pg/>
            </Show>
            <Evictions pg=pg/>
            <Capacity pg=pg/>
            <Warnings pg=pg/>
            <Show when=move || !pg.with(|p| p.embed)>
                <Policies pg=pg/>
                <Glossary/>
            </Show>
        </section>
    }
}

/// Saves a download, or says why not.
fn save(pg: Pg, download: Result<placement_playground::export::Download, String>) {
    let outcome = download.and_then(|d| browser::download(&d).map(|()| d.file_name));
    pg.update(|p| {
        p.notice = Some(match outcome {
            Ok(name) => Notice { text: format!("Downloaded {name}."), error: false },
            Err(e) => Notice { text: e, error: true },
        })
    });
}

/// The report as the CLI writes it, to download.
#[component]
fn Downloads(pg: Pg) -> impl IntoView {
    use placement_playground::export::ReportFormat;
    let get = move |format: ReportFormat| {
        let d = pg.try_update(|p| p.report_download(format)).unwrap_or_else(|| Err("the page is closing".into()));
        save(pg, d);
    };
    view! {
        <div class="downloads actions" role="group" aria-label="Download the report">
            <span class="hint">"Download the report, as "<code>"placement simulate"</code>" writes it:"</span>
            <button type="button" class="ghost" on:click=move |_| get(ReportFormat::Json)>"JSON"</button>
            <button type="button" class="ghost" on:click=move |_| get(ReportFormat::Markdown)>"Markdown"</button>
        </div>
    }
}

#[component]
fn Summary(pg: Pg) -> impl IntoView {
    view! {
        <div class="card">
            <h2>"Workloads"</h2>
            <div class="table-wrap" role="region" aria-label="Workloads summary" tabindex="0">
                <table class="summary">
                    <thead>
                        <tr>
                            <th scope="col">"KIND"</th>
                            <th scope="col">"NAMESPACE/NAME"</th>
                            <th scope="col" class="num">"DESIRED"</th>
                            <th scope="col" class="num">"CURRENT"</th>
                            <th scope="col" class="num">"SCHEDULED"</th>
                            <th scope="col" class="num">"PENDING"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            pg.with(|p| {
                                p.shown()
                                    .workloads
                                    .iter()
                                    .map(|w| {
                                        let pending = w.pending;
                                        let short = w.desired > w.scheduled;
                                        view! {
                                            <tr class:short=short data-workload=w.key()>
                                                <td>{w.kind.clone()}</td>
                                                <td>
                                                    {format!("{}/{}", w.namespace, w.name)}
                                                    {w.not_in_input.then(|| view! {
                                                        <span
                                                            class="badge"
                                                            title="The controller is not in the input: its pods are gathered here by their ownerReferences, and DESIRED is how many there are."
                                                        >
                                                            " (not in the input)"
                                                        </span>
                                                    })}
                                                </td>
                                                <td class="num" data-col="desired">{w.desired}</td>
                                                <td class="num" data-col="current">{w.current}</td>
                                                <td class="num" data-col="scheduled">{w.scheduled}</td>
                                                <td class="num" data-col="pending">{pending}</td>
                                            </tr>
                                        }
                                    })
                                    .collect_view()
                            })
                        }}
                    </tbody>
                </table>
            </div>
        </div>
    }
}

fn cell_text(c: &Cell) -> String {
    // A pod here cannot mount a claim (its CSI node plugin is not on the node): scheduled, yet
    // stuck in ContainerCreating.
    if !c.cannot_mount.is_empty() {
        return format!("⚠ {} cannot mount", c.pods_cannot_mount.max(1));
    }
    match c.state {
        CellState::Fits if c.pods.len() == 1 => "✓ 1 pod".into(),
        CellState::Fits if !c.pods.is_empty() => format!("✓ {} pods", c.pods.len()),
        CellState::Fits => "✓ fits".into(),
        CellState::Blocked => format!("✕ {}", c.plugin.unwrap_or("blocked")),
        CellState::Placed if c.pods.len() == 1 => "● 1 pod".into(),
        CellState::Placed => format!("● {} pods", c.pods.len()),
        CellState::Unknown => "–".into(),
    }
}

#[component]
fn Matrix(pg: Pg) -> impl IntoView {
    // The one cell of the matrix in the Tab order (row, column on the page): arrow keys move
    // it, so the matrix is one Tab stop however many cells it has (roving tabindex).
    let active = RwSignal::new((0usize, 0usize));
    let table = NodeRef::<html::Table>::new();
    let on_key = move |e: ev::KeyboardEvent| {
        let (rows, cols) = pg.with_untracked(|p| (p.shown().workloads.len(), p.matrix_columns().1.len()));
        let (r, c) = active.get_untracked();
        let (r, c) = (r.min(rows.saturating_sub(1)), c.min(cols.saturating_sub(1)));
        let next = match e.key().as_str() {
            "ArrowLeft" => (r, c.saturating_sub(1)),
            "ArrowRight" => (r, (c + 1).min(cols.saturating_sub(1))),
            "ArrowUp" => (r.saturating_sub(1), c),
            "ArrowDown" => ((r + 1).min(rows.saturating_sub(1)), c),
            "Home" => (r, 0),
            "End" => (r, cols.saturating_sub(1)),
            _ => return,
        };
        e.prevent_default();
        active.set(next);
        let found = table.get_untracked().and_then(|t| {
            t.query_selector(&format!("button[data-row='{}'][data-col='{}']", next.0, next.1)).ok().flatten()
        });
        if let Some(b) = found.and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = b.focus();
        }
    };
    // One listener for all the cells (event delegation) rather than two on each of hundreds
    // of cells, which every edit's redraw took off and put back: a cell's button carries its
    // row, column and node.
    let on_click = move |e: ev::MouseEvent| {
        let Some(b) = matrix_cell(e.target()) else { return };
        if let (Some(wi), Some(node)) = (cell_index(&b, "data-row"), b.get_attribute("data-node")) {
            pg.update(|p| p.select(wi, &node));
        }
    };
    let on_focus = move |e: ev::FocusEvent| {
        let Some(b) = matrix_cell(e.target()) else { return };
        if let (Some(r), Some(c)) = (cell_index(&b, "data-row"), cell_index(&b, "data-col")) {
            if active.get_untracked() != (r, c) {
                active.set((r, c));
            }
        }
    };
    view! {
        <div class="card">
            <h2 id="matrix-title">"Placement matrix"</h2>
            <p class="hint">
                "Each cell is one pod of the workload against the node, as kube-scheduler (or the DaemonSet controller) sees it. Hover for the reason and score; select a blocked cell for its fixes. Arrow keys move between cells."
            </p>
            <MatrixFilterBar pg=pg/>
            <div class="table-wrap matrix-wrap" role="region" aria-labelledby="matrix-title">
                {move || {
                    pg.with(|p| {
                        let eval = p.shown();
                        let selected = p.selected.clone();
                        let embed = p.embed;
                        let (_, columns) = p.matrix_columns();
                        if columns.is_empty() {
                            return view! { <p class="hint empty">"No node matches the filter."</p> }.into_any();
                        }
                        let spans = placement_playground::matrix::pool_spans(&columns);
                        // The cell in the Tab order, kept inside the matrix when it shrinks.
                        let (r, c) = active.get();
                        let tab_stop = (r.min(eval.workloads.len().saturating_sub(1)), c.min(columns.len().saturating_sub(1)));
                        view! {
                            <table class="matrix" node_ref=table on:keydown=on_key on:click=on_click on:focusin=on_focus>
                                <thead>
                                    <tr class="pools">
                                        <td class="corner"></td>
                                        {spans
                                            .into_iter()
                                            .map(|s| view! { <th scope="colgroup" colspan=s.columns class="pool">{s.pool}</th> })
                                            .collect_view()}
                                    </tr>
                                    <tr>
                                        <th scope="col" class="corner">"Workload \\ Node"</th>
                                        {columns
                                            .iter()
                                            .map(|col| {
                                                let n = &eval.nodes[col.node];
                                                let badges = format!(
                                                    "{}{}",
                                                    if n.taints.is_empty() { String::new() } else { format!("{} taint(s)", n.taints.len()) },
                                                    if n.cordoned { " · cordoned" } else { "" },
                                                );
                                                let mut title = n.taints.join("\n");
                                                if !col.alike.is_empty() {
                                                    title = format!("{title}\nAlike (every workload judges them the same): {}", col.alike.join(", "));
                                                }
                                                let alike = (!col.alike.is_empty()).then(|| format!("+{} alike", col.alike.len()));
                                                view! {
                                                    <th scope="col" title=title.trim().to_string()>
                                                        <span class="node-name">{n.name.clone()}</span>
                                                        {alike.map(|a| view! { <span class="alike">{a}</span> })}
                                                        <span class="badges">{badges}</span>
                                                    </th>
                                                }
                                            })
                                            .collect_view()}
                                    </tr>
                                </thead>
                                <tbody>
                                    {eval
                                        .workloads
                                        .iter()
                                        .enumerate()
                                        .map(|(wi, w)| matrix_row(wi, w, &columns, selected.as_ref(), embed, tab_stop))
                                        .collect_view()}
                                </tbody>
                            </table>
                        }
                            .into_any()
                    })
                }}
            </div>
            <MatrixPager pg=pg/>
        </div>
    }
}

/// The matrix's filter: text (node name or label), verdict, and collapsing alike nodes.
#[component]
fn MatrixFilterBar(pg: Pg) -> impl IntoView {
    use placement_playground::matrix::{MatrixFilter, VerdictFilter};
    let filter = move || pg.with(|p| p.matrix_filter.clone());
    let set = move |f: MatrixFilter| pg.update(|p| p.set_matrix_filter(f));
    view! {
        <div class="matrix-filter" role="search" aria-label="Filter the matrix's nodes">
            <label>
                "Nodes matching "
                <input
                    type="search"
                    id="matrix-filter-text"
                    placeholder="name or label, e.g. zone=eu-1a"
                    prop:value=move || filter().text
                    on:input=move |e| set(MatrixFilter { text: event_target_value(&e), ..filter() })
                />
            </label>
            <label>
                " showing "
                <select
                    id="matrix-filter-verdict"
                    prop:value=move || filter().verdict.to_string()
                    on:change=move |e| {
                        if let Ok(verdict) = event_target_value(&e).parse::<VerdictFilter>() {
                            set(MatrixFilter { verdict, ..filter() })
                        }
                    }
                >
                    {VerdictFilter::ALL
                        .into_iter()
                        .map(|v| view! { <option value=v.to_string()>{v.label()}</option> })
                        .collect_view()}
                </select>
            </label>
            <label>
                <input
                    type="checkbox"
                    id="matrix-filter-collapse"
                    prop:checked=move || filter().collapse
                    on:change=move |e| set(MatrixFilter { collapse: event_target_checked(&e), ..filter() })
                />
                " one column for alike nodes of a pool"
            </label>
        </div>
    }
}

/// "Nodes 1–24 of 200" with previous and next buttons, when the filter keeps more columns
/// than one page.
#[component]
fn MatrixPager(pg: Pg) -> impl IntoView {
    move || {
        pg.with(|p| {
            let pages = p.matrix_pages();
            if pages < 2 {
                return ().into_any();
            }
            let (columns, _) = p.matrix_columns();
            let page = p.matrix_page_shown();
            let total = p.matrix_all_columns().len();
            let (first, last) = (page == 0, page + 1 >= pages);
            view! {
                <nav class="pager" aria-label="Node columns">
                    <button
                        type="button"
                        disabled=first
                        on:click=move |_| pg.update(|p| p.set_matrix_page(page.saturating_sub(1)))
                    >
                        "◀ Previous nodes"
                    </button>
                    <span aria-live="polite">{format!("Nodes {}–{} of {total}", columns.start + 1, columns.end)}</span>
                    <button
                        type="button"
                        disabled=last
                        on:click=move |_| pg.update(|p| p.set_matrix_page(page + 1))
                    >
                        "Next nodes ▶"
                    </button>
                </nav>
            }
            .into_any()
        })
    }
}

fn matrix_row(
    wi: usize,
    w: &WorkloadView,
    columns: &[placement_playground::matrix::Column],
    selected: Option<&crate::state::Selection>,
    embed: bool,
    tab_stop: (usize, usize),
) -> impl IntoView {
    let cells = columns
        .iter()
        .enumerate()
        .filter_map(|(ci, col)| w.cells.get(col.node).map(|c| (ci, c)))
        .map(|(ci, c)| {
            let node = c.node.clone();
            let is_selected = selected.is_some_and(|s| s.workload == wi && *s.node == *c.node);
            let class = match c.state {
                CellState::Fits => "cell fit",
                CellState::Blocked => "cell blocked",
                CellState::Placed => "cell placed",
                CellState::Unknown => "cell unknown",
            };
            let class = if c.cannot_mount.is_empty() { class.to_string() } else { format!("{class} cannot-mount") };
            let title = c.title();
            let label = format!("{} on {}: {}", w.name, c.node, title);
            view! {
                // One class string: `class:selected` next to a `class` that changes (blocked to fit
                // after Apply) lost the selection's class when the row was redrawn.
                <td class=if is_selected { format!("{class} selected") } else { class.clone() }>
                    <button
                        type="button"
                        title=title
                        aria-label=label
                        aria-pressed=is_selected.to_string()
                        disabled=embed
                        data-node=node
                        data-row=wi
                        data-col=ci
                        tabindex=if tab_stop == (wi, ci) { "0" } else { "-1" }
                    >
                        {cell_text(c)}
                        {(c.state == CellState::Blocked && !c.fixes.is_empty())
                            .then(|| view! { <span class="fix-dot" aria-hidden="true">" fix"</span> })}
                    </button>
                </td>
            }
        })
        .collect_view();
    view! {
        <tr data-workload=w.key()>
            <th scope="row">
                <span class="kind">{w.kind.clone()}</span>
                " "
                <span class="wname">{format!("{}/{}", w.namespace, w.name)}</span>
                <span class="counts">{w.counters()}</span>
            </th>
            {cells}
        </tr>
    }
}

/// Whether the `<details>` a `toggle` event is for is now open.
fn details_open(e: &ev::Event) -> bool {
    e.target().and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok()).is_some_and(|d| d.open())
}

/// The matrix cell's button an event happened in (the button or something inside it).
fn matrix_cell(target: Option<web_sys::EventTarget>) -> Option<web_sys::Element> {
    target?.dyn_into::<web_sys::Element>().ok()?.closest("button[data-row][data-col]").ok()?
}

/// A cell button's `data-row` or `data-col`.
fn cell_index(button: &web_sys::Element, attribute: &str) -> Option<usize> {
    button.get_attribute(attribute)?.parse().ok()
}

#[component]
fn CellDetail(pg: Pg) -> impl IntoView {
    view! {
        <div class="card detail" aria-live="polite">
            {move || {
                pg.with(|p| {
                    let eval = p.shown();
                    let Some(sel) = p.selected.clone() else {
                        return view! { <p class="hint">"Select a cell of the matrix to see why and how to fix it."</p> }
                            .into_any();
                    };
                    let Some(w) = eval.workloads.get(sel.workload) else { return ().into_any() };
                    let Some(c) = w.cells.iter().find(|c| *c.node == *sel.node) else { return ().into_any() };
                    let verdict = match c.state {
                        CellState::Fits => "fits",
                        CellState::Blocked => "blocked",
                        CellState::Placed => "placed",
                        CellState::Unknown => "not evaluated",
                    };
                    let fixes: Vec<(usize, Fix)> = c.fixes.iter().filter_map(|&i| w.fixes.get(i).map(|f| (i, f.clone()))).collect();
                    let wi = sel.workload;
                    let stale = p.stale();
                    let checking = p.fixes_pending();
                    view! {
                        <h2>{format!("{} on {}", w.label(), c.node)}</h2>
                        <dl class="facts">
                            <dt>"Verdict"</dt>
                            <dd class=format!("verdict {verdict}")>{verdict}</dd>
                            {c.plugin.map(|x| view! { <dt>"Plugin"</dt><dd>{plugin_link(x.to_string())}</dd> })}
                            {c.reason.clone().map(|x| view! { <dt>"Reason (upstream)"</dt><dd><code>{x}</code></dd> })}
                            {c.detail.clone().map(|x| view! { <dt>"Detail"</dt><dd class="detail-text">{x}</dd> })}
                            {c.score.map(|x| {
                                let rank = w
                                    .rank(&c.node)
                                    .map(|(r, n)| format!(" (rank {r} of {n} node{} it fits on)", if n == 1 { "" } else { "s" }))
                                    .unwrap_or_default();
                                view! { <dt>"Score"</dt><dd class="score">{x}{rank}</dd> }
                            })}
                            {(!c.pods.is_empty()).then(|| view! { <dt>"Pods here"</dt><dd>{c.pods.join(", ")}</dd> })}
                            {(!c.volumes.is_empty()).then(|| {
                                let items = c.volumes.iter().map(|v| view! { <li>{v.clone()}</li> }).collect_view();
                                view! { <dt>"Claims"</dt><dd><ul class="claims">{items}</ul></dd> }
                            })}
                            {(!c.cannot_mount.is_empty()).then(|| {
                                let items = c.cannot_mount.iter().map(|v| view! { <li>{v.clone()}</li> }).collect_view();
                                view! { <dt>"Cannot mount"</dt><dd class="cannot-mount"><ul>{items}</ul></dd> }
                            })}
                            // The verdict above is the workload's first pod's cycle.
                            {(!c.pending_verdicts.is_empty()).then(|| {
                                let items = c.pending_verdicts.iter().map(|v| view! { <li>{v.clone()}</li> }).collect_view();
                                view! { <dt>"Pending pods (own cycles)"</dt><dd class="pending-verdicts"><ul>{items}</ul></dd> }
                            })}
                        </dl>
                        {if w.kind == "DaemonSet" {
                            view! {
                                <p class="hint">
                                    "A DaemonSet's pod is pinned to its node: the verdict above is that node's whole cycle, and no score chooses among nodes."
                                </p>
                            }
                                .into_any()
                        } else if p.breakdown_wanted().is_some() {
                            view! { <p class="hint breakdown-pending">"Breakdown: checking…"</p> }.into_any()
                        } else {
                            p.selected_breakdown().cloned().map(breakdown_view).into_any()
                        }}
                        {if fixes.is_empty() {
                            (c.state == CellState::Blocked)
                                .then(|| view! { <p class="hint">"No fix reaches this node."</p> })
                                .into_any()
                        } else {
                            view! {
                                <h3>"Fixes"</h3>
                                <ol class="fixes">
                                    {fixes.into_iter().map(|(fi, f)| fix_view(pg, wi, fi, f, stale, checking)).collect_view()}
                                </ol>
                            }
                                .into_any()
                        }}
                    }
                        .into_any()
                })
            }}
        </div>
    }
}

/// A cell's cycle, plugin by plugin: the Filter plugins in order, then the Score plugins.
fn breakdown_view(b: CellBreakdown) -> AnyView {
    let filters = b
        .filters
        .into_iter()
        .map(|f| {
            let (class, text) = match f.outcome {
                FilterOutcome::Passed => ("passed", "passed".to_string()),
                FilterOutcome::Skipped => ("skipped", "skipped (its PreFilter returned Skip)".to_string()),
                FilterOutcome::Rejected(reason) => ("rejected", format!("rejected: {reason}")),
                FilterOutcome::NotRun => ("not-run", "not run (the node was already rejected)".to_string()),
            };
            view! {
                <tr class=class data-plugin=f.plugin>
                    <td>{plugin_link(f.plugin.to_string())}</td>
                    <td>{text}</td>
                </tr>
            }
        })
        .collect_view();
    let pre_filter = b.pre_filter.map(|(plugin, reason)| {
        view! {
            <p class="pre-filter">
                "PreFilter of " {plugin_link(plugin)} " rejected the pod or left this node out: " <code>{reason}</code>
                " (no Filter plugin ran on it)."
            </p>
        }
    });
    let number = |n: Option<i64>| n.map_or_else(|| "–".to_string(), |n| n.to_string());
    let scores = (!b.scores.is_empty()).then(|| {
        let rows = b
            .scores
            .iter()
            .map(|r| {
                view! {
                    <tr data-plugin=r.plugin>
                        <td>{plugin_link(r.plugin.to_string())}</td>
                        <td class="num raw">{number(r.raw)}</td>
                        <td class="num normalized">{number(r.normalized)}</td>
                        <td class="num">{r.weight}</td>
                        <td class="num weighted">{number(r.weighted())}</td>
                    </tr>
                }
            })
            .collect_view();
        let rank = b
            .rank
            .map(|(r, n)| format!("rank {r} of {n} node{} scored", if n == 1 { "" } else { "s" }))
            .unwrap_or_default();
        view! {
            <table class="breakdown scores">
                <caption>"Score plugins"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Plugin"</th>
                        <th scope="col" title="What the plugin's Score returned">"Raw"</th>
                        <th scope="col" title="After the plugin's NormalizeScore (0-100)">"Normalized"</th>
                        <th scope="col">"Weight"</th>
                        <th scope="col">"Weighted"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
                <tfoot>
                    <tr>
                        <th scope="row" colspan="4">"Total"</th>
                        <td class="num total">{number(b.total)}</td>
                    </tr>
                    <tr>
                        <td colspan="5" class="rank">{rank}</td>
                    </tr>
                </tfoot>
            </table>
        }
    });
    view! {
        <div class="breakdown-card">
            {pre_filter}
            <table class="breakdown filters">
                <caption>"Filter plugins, in order"</caption>
                <tbody>{filters}</tbody>
            </table>
            {scores}
        </div>
    }
    .into_any()
}

/// A plugin's name, linked to its glossary entry when it has one.
fn plugin_link(name: String) -> AnyView {
    if placement_playground::glossary::entry(&name).is_none() {
        return name.into_any();
    }
    let target = format!("glossary-{name}");
    view! {
        <button
            type="button"
            class="link plugin-link"
            title="What this plugin does (glossary)"
            on:click=move |_| {
                let found = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&target));
                if let Some(el) = found.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                    el.scroll_into_view();
                    let _ = el.focus();
                }
            }
        >
            {name}
        </button>
    }
    .into_any()
}

/// The scheduler plugins the matrix and the breakdown name, in a few words each.
#[component]
fn Glossary() -> impl IntoView {
    view! {
        <div class="card glossary">
            <h2 id="glossary-title">"Glossary: the scheduler plugins"</h2>
            <dl aria-labelledby="glossary-title">
                {placement_playground::glossary::PLUGINS
                    .iter()
                    .map(|(name, text)| {
                        view! {
                            <dt id=format!("glossary-{name}") tabindex="-1"><code>{*name}</code></dt>
                            <dd>{*text}</dd>
                        }
                    })
                    .collect_view()}
            </dl>
        </div>
    }
}

/// One fix; `checking`: the fixes are not re-checked yet (none is verified or applicable).
fn fix_view(pg: Pg, wi: usize, fi: usize, f: Fix, stale: bool, checking: bool) -> impl IntoView {
    let patch = f.patch.clone();
    let verified = f.verified;
    let command = f.command.clone();
    let copy = move |text: String, what: &'static str| {
        browser::copy_text(text, move |ok| {
            pg.update(|p| {
                p.notice = Some(Notice {
                    text: if ok {
                        format!("Copied the {what}.")
                    } else {
                        format!("Could not copy the {what}: select it and copy.")
                    },
                    error: !ok,
                })
            })
        })
    };
    view! {
        <li class="fix">
            <p>
                <span class="plugin">{f.plugin}</span>
                " "
                {f.description.clone()}
                {f.verified.then(|| view! { <span class="badge ok" title="a full re-simulation with this fix applied places every replica">" verified"</span> })}
                {(checking && f.still_blocked.is_none()).then(|| view! { <span class="badge checking" role="status" title="simulating the cluster again with this fix applied">" checking…"</span> })}
            </p>
            {f.still_blocked.clone().map(|s| view! { <p class="warn">"Not verified: " {s}</p> })}
            {f.warning.clone().map(|w| view! { <p class="warn">"Warning: " {w}</p> })}
            {patch.is_none().then(|| command.clone()).flatten().map(|cmd| view! { <pre class="patch" tabindex="0" aria-label="Command">{cmd}</pre> })}
            {patch
                .clone()
                .map(|text| {
                    let for_copy = text.clone();
                    view! {
                        <pre class="patch" tabindex="0" aria-label="Patch">{text}</pre>
                        <div class="actions">
                            <button type="button" class="ghost" on:click=move |_| copy(for_copy.clone(), "patch")>
                                "Copy patch"
                            </button>
                            {(!checking).then(|| view! {
                                <button
                                    type="button"
                                    class="ghost"
                                    on:click=move |_| {
                                        let d = pg.try_update(|p| p.fix_download(wi, fi)).unwrap_or_else(|| Err("the page is closing".into()));
                                        save(pg, d);
                                    }
                                >
                                    "Download patch"
                                </button>
                            })}
                            {command
                                .clone()
                                .map(|cmd| {
                                    view! {
                                        <button type="button" class="ghost" on:click=move |_| copy(cmd.clone(), "command")>
                                            "Copy kubectl command"
                                        </button>
                                    }
                                })}
                            // Only a fix that fixes is applied: the others say what still blocks.
                            {verified.then(|| view! {
                            <button
                                type="button"
                                class="primary apply"
                                disabled=stale
                                title=if stale { "Fix the input errors first" } else { "Edit the manifest with this patch" }
                                on:click=move |_| {
                                    pg.update(|p| {
                                        let _ = p.apply_fix(wi, fi);
                                    });
                                    // The button goes with the fix: focus the cell it was for.
                                    browser::focus_after_render(&[".matrix td.selected button", "#results"]);
                                }
                            >
                                "Apply to manifest"
                            </button>
                            })}
                        </div>
                    }
                })}
        </li>
    }
}

#[component]
fn Pending(pg: Pg) -> impl IntoView {
    view! {
        {move || {
            pg.with(|p| {
                let groups = p.shown().pending_groups();
                (!groups.is_empty())
                    .then(|| {
                        view! {
                            <div class="card">
                                <h2>"Pending pods (FailedScheduling)"</h2>
                                <ul class="pending">
                                    {groups
                                        .into_iter()
                                        .map(|g| {
                                            let pods = g.pods;
                                            let who = if pods.len() > 3 {
                                                format!("{} and {} more", pods[..3].join(", "), pods.len() - 3)
                                            } else {
                                                pods.join(", ")
                                            };
                                            view! {
                                                <li>
                                                    <span class="who">{who}</span>
                                                    <code class="message">{g.message}</code>
                                                    {g
                                                        .snapshot_messages
                                                        .into_iter()
                                                        .map(|m| {
                                                            view! {
                                                                <p class="hint">
                                                                    "The snapshot's PodScheduled message differs (the cluster may have changed since): "
                                                                    <code>{m}</code>
                                                                </p>
                                                            }
                                                        })
                                                        .collect_view()}
                                                </li>
                                            }
                                        })
                                        .collect_view()}
                                </ul>
                            </div>
                        }
                    })
            })
        }}
    }
}

/// Every workload's pods, as the CLI's POD table lists them: the snapshot's first (with their
/// status), then those the controllers create. A workload's table is built only while its
/// `<details>` is open: closed, it is not shown, and every edit rebuilt every pod's row
/// (835 at 200 nodes x 20 workloads) for nothing.
#[component]
fn Pods(pg: Pg) -> impl IntoView {
    // The workloads (`WorkloadView::key`) whose pods are open; kept across edits.
    let open = RwSignal::new(std::collections::BTreeSet::<String>::new());
    view! {
        {move || {
            let open_now = open.get();
            pg.with(|p| {
                let eval = p.shown();
                let total: usize = eval.workloads.iter().map(|w| w.pods.len()).sum();
                (total > 0)
                    .then(|| {
                        view! {
                            <div class="card pods">
                                <h2>{format!("Pods ({total})")}</h2>
                                {eval
                                    .workloads
                                    .iter()
                                    .filter(|w| !w.pods.is_empty())
                                    .map(|w| {
                                        let existing = w.pods.iter().filter(|p| p.existing).count();
                                        let summary = format!(
                                            "{} · {} pod(s){}",
                                            w.label(),
                                            w.pods.len(),
                                            if existing > 0 { format!(", {existing} from the input") } else { String::new() },
                                        );
                                        let key = w.key();
                                        let is_open = open_now.contains(&key);
                                        let table = is_open.then(|| {
                                            // A CLAIMS column only for workloads whose pods use claims.
                                            let with_claims = w.pods.iter().any(|pod| !pod.claims.is_empty());
                                            let rows = w
                                                .pods
                                                .iter()
                                                .map(|pod| {
                                                    let mut row = vec![
                                                        (pod.name.clone(), false),
                                                        (pod.node.as_deref().unwrap_or("<none>").to_string(), false),
                                                        (pod.status.clone(), false),
                                                    ];
                                                    if with_claims {
                                                        let mut volumes = pod.claims.join(", ");
                                                        for warning in &pod.cannot_mount {
                                                            volumes.push_str(&format!("; warning: {warning}"));
                                                        }
                                                        row.push((volumes, !pod.cannot_mount.is_empty()));
                                                    }
                                                    row
                                                })
                                                .collect();
                                            let head: &'static [&'static str] =
                                                if with_claims { &["POD", "NODE", "STATUS", "CLAIMS"] } else { &["POD", "NODE", "STATUS"] };
                                            text_table(format!("Pods of {}", w.label()), "pod-list", head, &[], rows)
                                        });
                                        let toggled = key.clone();
                                        view! {
                                            <details
                                                data-workload=key
                                                prop:open=is_open
                                                on:toggle=move |e: ev::Event| {
                                                    let now = details_open(&e);
                                                    if open.with_untracked(|o| o.contains(&toggled)) != now {
                                                        open.update(|o| {
                                                            if now {
                                                                o.insert(toggled.clone());
                                                            } else {
                                                                o.remove(&toggled);
                                                            }
                                                        });
                                                    }
                                                }
                                            >
                                                <summary>{summary}</summary>
                                                {table}
                                            </details>
                                        }
                                    })
                                    .collect_view()}
                            </div>
                        }
                    })
            })
        }}
    }
}

#[component]
fn Evictions(pg: Pg) -> impl IntoView {
    view! {
        {move || {
            pg.with(|p| {
                let ev = p.shown().evictions.clone();
                (!ev.is_empty())
                    .then(|| {
                        view! {
                            <div class="card">
                                <h2>"Evictions (NoExecute taints)"</h2>
                                <div class="table-wrap" role="region" aria-label="Evictions" tabindex="0">
                                    <table>
                                        <thead>
                                            <tr>
                                                <th scope="col">"POD"</th>
                                                <th scope="col">"NODE"</th>
                                                <th scope="col">"TAINT"</th>
                                                <th scope="col">"WHEN"</th>
                                            </tr>
                                        </thead>
                                        <tbody>
                                            {ev
                                                .into_iter()
                                                .map(|e| {
                                                    let when = e.after_seconds.map(|s| format!("after {s}s")).unwrap_or_else(|| "now".into());
                                                    view! {
                                                        <tr title=e.message.clone()>
                                                            <td>{format!("{}/{}", e.namespace, e.pod)}</td>
                                                            <td>{e.node.clone()}</td>
                                                            <td><code>{e.taint.clone()}</code></td>
                                                            <td>{when}</td>
                                                        </tr>
                                                    }
                                                })
                                                .collect_view()}
                                        </tbody>
                                    </table>
                                </div>
                            </div>
                        }
                    })
            })
        }}
    }
}

#[component]
fn Capacity(pg: Pg) -> impl IntoView {
    let card = NodeRef::<html::Div>::new();
    // Every node's card, below the matrix: while it is out of sight (with a screen's margin),
    // an edit does not rebuild it; coming near the screen, it shows the evaluation of then.
    // At 200 nodes that is 3,500 elements an edit no longer rebuilds.
    let near = browser::near_viewport(card, "600px 0px");
    let evaluation =
        Memo::new_owning(move |prev: Option<std::sync::Arc<placement_playground::evaluation::Evaluation>>| {
            if !near.get() {
                if let Some(prev) = prev {
                    return (prev, false);
                }
            }
            let now = pg.with(|p| p.shown_shared().clone());
            let changed = prev.is_none_or(|prev| !std::sync::Arc::ptr_eq(&prev, &now));
            (now, changed)
        });
    view! {
        <div class="card capacity-card" node_ref=card>
            <h2>"Node capacity (requested / allocatable)"</h2>
            <ul class="capacity">
                {move || {
                    evaluation.with(|eval| {
                        eval
                            .nodes
                            .iter()
                            .map(|n| {
                                view! {
                                    <li class="node-cap">
                                        <h3>
                                            {n.name.clone()}
                                            {n.cordoned.then(|| view! { <span class="badge">" cordoned"</span> })}
                                        </h3>
                                        {(!n.taints.is_empty()).then(|| view! { <p class="taints"><code>{n.taints.join(", ")}</code></p> })}
                                        {n
                                            .usage
                                            .iter()
                                            .map(|u| {
                                                let pct = u.percent.unwrap_or(0.0);
                                                let level = if pct > 100.0 { "over" } else if pct >= 85.0 { "high" } else { "" };
                                                let label = format!("{} on {}: {}", u.resource, n.name, u.text);
                                                view! {
                                                    <div class="usage">
                                                        <span class="res">{u.resource.clone()}</span>
                                                        <div
                                                            class=format!("bar {level}")
                                                            role="meter"
                                                            aria-label=label
                                                            aria-valuemin="0"
                                                            aria-valuemax="100"
                                                            aria-valuenow=format!("{:.0}", pct.min(100.0))
                                                        >
                                                            <div class="fill" style:width=format!("{:.1}%", pct.min(100.0))></div>
                                                        </div>
                                                        <span class="amount">{u.text.clone()}</span>
                                                    </div>
                                                }
                                            })
                                            .collect_view()}
                                    </li>
                                }
                            })
                            .collect_view()
                    })
                }}
            </ul>
        </div>
    }
}

#[component]
fn Warnings(pg: Pg) -> impl IntoView {
    view! {
        {move || {
            pg.with(|p| {
                let eval = p.shown();
                let notes: Vec<String> = eval.warnings.clone();
                (!notes.is_empty())
                    .then(|| {
                        view! {
                            <div class="card">
                                <h2>"Warnings"</h2>
                                <ul class="warnings">
                                    {notes.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}
                                </ul>
                            </div>
                        }
                    })
            })
        }}
    }
}

/// Runs the admission policy over every workload in the admission module, which the first
/// run loads (see `web/src/admission.js`).
fn run_policy(pg: Pg) {
    let Some((run, request)) = pg.try_update(Playground::start_policy_run) else { return };
    leptos::task::spawn_local(async move {
        let answer = browser::review_admission(request).await;
        pg.update(|p| p.finish_policy_run(run, answer));
    });
}

#[component]
fn Policies(pg: Pg) -> impl IntoView {
    // Memos, so that a policy run finishing or after-the-frame work does not write the saved
    // text over what is being typed (both are written back on change). The default settings
    // hold a JSON copy of every node: written out only while their box is open, not on every
    // edit of the nodes (at 1,000 nodes, 450 KB each time).
    let settings_open = RwSignal::new(false);
    let settings =
        Memo::new(move |_| if settings_open.get() { pg.with(Playground::policy_settings_text) } else { String::new() });
    let gatekeeper = Memo::new(move |_| pg.with(|p| p.state.gatekeeper.clone()));
    // Open when policies are pasted; a memo, so that other edits do not close a box the
    // user opened by hand.
    let has_gatekeeper = Memo::new(move |_| pg.with(|p| !p.state.gatekeeper.is_empty()));
    view! {
        <div class="card policies">
            <h2 id="policy-title">"Admission policy (Kubewarden, Gatekeeper)"</h2>
            <p class="hint">
                "The placement policy module's answer for every workload, as the API server would ask it on create. Edit the settings to turn policies on and off (the inventory defaults to the nodes above), and paste Gatekeeper ConstraintTemplates and Constraints to have the module evaluate them too."
            </p>
            <div class="options">
                <button type="button" class="primary" on:click=move |_| run_policy(pg)>
                    "Run the policy"
                </button>
                <button
                    type="button"
                    class="ghost"
                    on:click=move |_| pg.update(|p| {
                        p.policy_settings = None;
                        p.policy_result = None;
                    })
                >
                    "Default settings"
                </button>
            </div>
            <details on:toggle=move |e: ev::Event| settings_open.set(details_open(&e))>
                <summary>"Settings (JSON)"</summary>
                <textarea
                    class="code settings"
                    rows="12"
                    spellcheck="false"
                    aria-label="Policy settings JSON"
                    prop:value=move || settings.get()
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        pg.update(|p| p.policy_settings = Some(v));
                        run_policy(pg);
                    }
                ></textarea>
            </details>
            <details prop:open=move || has_gatekeeper.get()>
                <summary>"Gatekeeper templates and constraints (YAML)"</summary>
                <div class="options">
                    <button
                        type="button"
                        class="ghost"
                        on:click=move |_| {
                            pg.update(|p| p.set_gatekeeper(policy_panel::GATEKEEPER_SAMPLE.into()));
                            run_policy(pg);
                        }
                    >
                        "Load a sample (privileged containers)"
                    </button>
                    <button
                        type="button"
                        class="ghost"
                        on:click=move |_| {
                            pg.update(|p| p.set_gatekeeper(String::new()));
                            run_policy(pg);
                        }
                    >
                        "Clear"
                    </button>
                </div>
                <textarea
                    class="code settings gatekeeper"
                    rows="12"
                    spellcheck="false"
                    aria-label="Gatekeeper ConstraintTemplates and Constraints YAML"
                    placeholder="apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\n...\n---\napiVersion: constraints.gatekeeper.sh/v1beta1\n..."
                    prop:value=move || gatekeeper.get()
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        pg.update(|p| p.set_gatekeeper(v));
                        run_policy(pg);
                    }
                ></textarea>
            </details>
            <p class="hint" role="status">
                {move || {
                    pg.with(|p| p.policy_pending)
                        .then_some("Running the policy (the first run loads the admission module)…")
                }}
            </p>
            <Show when=move || pg.with(Playground::policy_stale)>
                <p class="banner warn stale-policy" role="status">
                    "These verdicts are of an earlier input: the manifests or settings changed since. "
                    <button type="button" class="link" on:click=move |_| run_policy(pg)>
                        "Run the policy again"
                    </button>
                </p>
            </Show>
            {move || {
                pg.with(|p| p.policy_result.clone())
                    .map(|r| match r {
                        Ok(all) => {
                            view! {
                                <table
                                    class="verdicts"
                                    class:stale=move || pg.with(Playground::policy_stale)
                                    aria-label="Admission verdict per workload"
                                >
                                    <thead>
                                        <tr>
                                            <th scope="col">"Workload"</th>
                                            <th scope="col">"Verdict"</th>
                                            <th scope="col">"Message"</th>
                                        </tr>
                                    </thead>
                                    <tbody>
                                        {all
                                            .into_iter()
                                            .map(|w| {
                                                let i = w.workload;
                                                let v = w.verdict;
                                                let (class, word) = match (v.accepted, v.warnings.is_empty()) {
                                                    (false, _) => ("verdict blocked", "rejected"),
                                                    (true, true) => ("verdict fits", "accepted"),
                                                    (true, false) => ("verdict warned", "accepted with warnings"),
                                                };
                                                let detail = v.message.clone().into_iter().chain(v.warnings).collect::<Vec<_>>().join("; ");
                                                view! {
                                                    <tr
                                                        class:chosen=move || pg.with(|p| p.policy_workload == i)
                                                        on:click=move |_| pg.update(|p| p.policy_workload = i)
                                                    >
                                                        <td>
                                                            <button type="button" class="link" aria-label=format!("Show the response for {}", w.label)>
                                                                {w.label.clone()}
                                                            </button>
                                                        </td>
                                                        <td class=class>{word}</td>
                                                        <td class="why">{detail}</td>
                                                    </tr>
                                                }
                                            })
                                            .collect_view()}
                                    </tbody>
                                </table>
                            }
                                .into_any()
                        }
                        Err(e) => view! { <p class="warn" role="alert">{e}</p> }.into_any(),
                    })
            }}
            {move || {
                pg.with(|p| p.policy_verdict())
                    .and_then(Result::ok)
                    .map(|v| {
                        view! {
                            <pre class="patch" tabindex="0" aria-label="ValidationResponse JSON">{v.response_json}</pre>
                        }
                    })
            }}
        </div>
    }
}

#[component]
fn Footer(pg: Pg) -> impl IntoView {
    view! {
        <footer class="bottom">
            <p>
                "Re-evaluated in "
                <span class="eval-ms">{move || pg.with(|p| format!("{:.1}", p.eval_ms))}</span>
                " ms on every edit, in this page. Same engine as the "
                <code>"placement"</code>
                " CLI: kube-scheduler's filters and scores, the DaemonSet controller's node rules, upstream's messages."
            </p>
        </footer>
    }
}
