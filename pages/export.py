"""Export: the selected features, the blankets, the full decision record, the configuration
that reproduces the run through the CLI, and the graphs as standalone HTML."""

import streamlit as st

from camcf.viz import export, figures, graphs, summary
from pages._common import current_run, pick_target, truth_for

rec = current_run()
res = rec.result
st.title("Export")

st.subheader("Results")
c1, c2, c3 = st.columns(3)
c1.download_button("Selected features (CSV)", summary.selected_frame(res).to_csv(index=False),
                   "camcf-selected.csv", "text/csv", on_click="ignore", key="ex_sel")
c2.download_button("Blankets per category (CSV)", summary.blankets_frame(res).to_csv(index=False),
                   "camcf-blankets.csv", "text/csv", on_click="ignore", key="ex_bl")
c3.download_button("Result summary (JSON)", lambda: res.to_json(), "camcf-result.json",
                   "application/json", on_click="ignore", key="ex_res")

st.subheader("Decision record")
st.caption(f"{res.n_tests:,} decisions: phase, step, quantity, variables, conditioning set, "
           "value (bits), threshold, decision.")
d1, d2, d3 = st.columns(3)
d1.download_button("Decision record (CSV)", lambda: res.record_bytes("csv"),
                   "camcf-decisions.csv", "text/csv", on_click="ignore", key="ex_dec_csv")
d3.download_button("Decision record (Parquet)", lambda: res.record_bytes("parquet"),
                   "camcf-decisions.parquet", "application/vnd.apache.parquet",
                   on_click="ignore", key="ex_dec_parquet")
d2.download_button("Result with decision record (JSON)",
                   lambda: res.to_json(include_trace=True), "camcf-result-trace.json",
                   "application/json", on_click="ignore", key="ex_dec_json")

st.subheader("Configuration")
cfg = export.run_config(rec.data.source, rec.disc, rec.params, fingerprint=rec.data.fingerprint)
st.markdown("This command reproduces the run:")
st.code(export.cli_lines(cfg["cli"]), language="bash")
if rec.data.source.get("kind") == "demo":
    st.caption("The demo has no file: download it as `demo.csv` (features, then the labels as "
               "integer codes) and run the command beside it.")
    st.download_button("Demo data (demo.csv)", lambda: export.dataset_csv(rec.data.dataset),
                       "demo.csv", "text/csv", on_click="ignore", key="ex_demo")
if rec.data.source.get("kind") == "network":
    st.caption("The data are a sample of a known network: this command writes them (the ARFF, "
               "its MULAN XML and the truth), then the command above runs on them (add "
               "`--truth` and the .truth.json to score the selection).")
    st.code(rec.data.source["simulate"], language="bash")
st.download_button("Configuration (JSON)", export.config_json(cfg), "camcf-config.json",
                   "application/json", on_click="ignore", key="ex_cfg")

st.subheader("Graphs (standalone HTML, work offline)")
tid = pick_target(res, "ex_target")
truth = truth_for(rec, tid)
name = res.targets[tid].category.display.replace("=", "-")
g1, g2, g3 = st.columns(3)
g1.download_button(f"Local graph of {res.targets[tid].category.display}",
                   lambda: graphs.local_graph_html(res, tid, truth=truth),
                   f"camcf-local-{name}.html", "text/html", on_click="ignore", key="ex_g_local")
g2.download_button("Label skeleton graph", lambda: graphs.skeleton_graph_html(res),
                   "camcf-skeleton.html", "text/html", on_click="ignore", key="ex_g_sk")
g3.download_button("Flow Sankey (plotly)",
                   lambda: figures.to_standalone_html(figures.flow_sankey(res)),
                   "camcf-flow.html", "text/html", on_click="ignore", key="ex_g_flow")
st.caption(f"Data fingerprint: `{rec.data.fingerprint}`")
