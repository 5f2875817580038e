{#- An incremental model keeps rows an earlier build wrote, so a change to what wrote them must
    rebuild it whole. Its version is an MD5 of its own SQL, of the SQL of every model upstream of it
    (found in dbt's graph, so a staging model made ephemeral or a new ref is covered without a list
    to keep), and of a `context`: a value the rows depend on beyond their key's events (the newest
    price table). It is stored as the table's comment, inside the build's transaction; a table
    written by another version (or with no comment: written before this macro) is emptied in the
    same transaction (clear_unless_written_by_this_code as a pre-hook) and rebuilt from every event.
    `context_sql`, if given, is a query whose single value is that context: run at execution time,
    so it may read source() or a table, never an ephemeral model. -#}
{% macro code_version(context_sql=none) %}
  {%- set parts = [model.raw_code] -%}
  {%- if execute -%}
    {%- set seen = [] -%}
    {%- do upstream_model_ids(model.unique_id, seen) -%}
    {%- for unique_id in seen | sort -%}
      {%- do parts.append(unique_id ~ '\x1e' ~ graph.nodes[unique_id].raw_code) -%}
    {%- endfor -%}
    {%- if context_sql is not none -%}
      {%- set found = run_query(context_sql) -%}
      {%- do parts.append('context\x1e' ~ (found.rows[0][0] if found.rows | length > 0 else '')) -%}
    {%- endif -%}
  {%- endif -%}
  {{- return(local_md5(parts | join('\x1f'))) -}}
{% endmacro %}

{#- Every model (SQL or Python) `unique_id` reads, directly or not, appended once to `seen`. -#}
{% macro upstream_model_ids(unique_id, seen) %}
  {%- set node = model if unique_id == model.unique_id else graph.nodes[unique_id] -%}
  {%- for parent in node.depends_on.nodes -%}
    {%- if parent.startswith('model.') and parent not in seen -%}
      {%- do seen.append(parent) -%}
      {%- do upstream_model_ids(parent, seen) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- True when the existing table was written by this code version (its rows can be kept). -#}
{% macro written_by_this_code(context_sql=none) %}
  {%- if not execute or this is none or not is_incremental() -%}
    {{- return(false) -}}
  {%- endif -%}
  {%- set found = run_query(
      "select comment from duckdb_tables() where database_name = '" ~ this.database ~ "' and schema_name = '"
      ~ this.schema ~ "' and table_name = '" ~ this.identifier ~ "'") -%}
  {{- return(found.rows | length == 1 and found.rows[0][0] == code_version(context_sql)) -}}
{% endmacro %}

{#- Pre-hook: a kept table written by other code loses its rows in the build's transaction, so the
    build inserts every key and none of the old rows survives (a key the new code no longer makes
    included); a crash before the commit leaves the old table and its old comment, rebuilt again. -#}
{% macro clear_unless_written_by_this_code(context_sql=none) %}
  {%- if execute and is_incremental() and not written_by_this_code(context_sql) -%}
    delete from {{ this }}
  {%- endif -%}
{% endmacro %}

{% macro record_code_version(context_sql=none) %}
  comment on table {{ this }} is '{{ code_version(context_sql) }}'
{% endmacro %}

{#- The version comment of another table (an incremental model read by this one): as a context, a
    rebuild of that table rebuilds this one. -#}
{% macro table_comment_sql(relation) %}
  {{- return("select comment from duckdb_tables() where database_name = '" ~ relation.database
             ~ "' and schema_name = '" ~ relation.schema ~ "' and table_name = '" ~ relation.identifier ~ "'") -}}
{% endmacro %}

{#- A context that changes whenever an event of `table_name` is sealed: an MD5 of every such event's
    id (for rows that read the whole of a small event type, such as the price tables). It reads the
    source, not the staging model: run_query cannot read a staging model made ephemeral. -#}
{% macro event_ids_sql(table_name) %}
  {{- return("select md5(coalesce(string_agg(cast(event_id as varchar), ',' order by event_id), '')) from "
             ~ source('events', table_name)) -}}
{% endmacro %}
