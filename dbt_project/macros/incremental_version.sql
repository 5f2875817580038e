{#- An incremental model keeps rows an earlier build wrote, so a change to the code that wrote them
    (its own SQL or the staging models it reads) must rebuild it whole. The version is an MD5 of that
    code, stored as the table's comment after each build; a table written by other code (or with no
    comment: written before this macro) is rebuilt from every event. -#}
{% macro code_version(upstream_models=[]) %}
  {%- set parts = [model.raw_code] -%}
  {%- if execute -%}
    {%- for name in upstream_models -%}
      {%- do parts.append(graph.nodes['model.' ~ project_name ~ '.' ~ name].raw_code) -%}
    {%- endfor -%}
  {%- endif -%}
  {{- return(local_md5(parts | join('\x1f'))) -}}
{% endmacro %}

{#- True when the existing table was written by this code version (incremental rows can be kept). -#}
{% macro written_by_this_code(upstream_models=[]) %}
  {%- if not execute or this is none or not is_incremental() -%}
    {{- return(false) -}}
  {%- endif -%}
  {%- set found = run_query(
      "select comment from duckdb_tables() where database_name = '" ~ this.database ~ "' and schema_name = '"
      ~ this.schema ~ "' and table_name = '" ~ this.identifier ~ "'") -%}
  {{- return(found.rows | length == 1 and found.rows[0][0] == code_version(upstream_models)) -}}
{% endmacro %}

{% macro record_code_version(upstream_models=[]) %}
  comment on table {{ this }} is '{{ code_version(upstream_models) }}'
{% endmacro %}
