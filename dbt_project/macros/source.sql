{#- source(), with the events source's location filled in from the environment when a model is compiled
    (never while parsing, so no lake's path enters dbt's partial parse): PEERLAKE_SEGMENTS_URL on a remote
    lake, else <PEERLAKE_HOME>/events/segments; the manifests sit beside the segments folder. -#}
{% macro source(source_name, table_name) -%}
  {%- set relation = builtins.source(source_name, table_name) -%}
  {%- if execute and relation.external and '__segments__' in relation.external -%}
    {%- set segments = env_var('PEERLAKE_SEGMENTS_URL', env_var('PEERLAKE_HOME', '../warehouse/lake') ~ '/events/segments') -%}
    {%- set located = relation.external.replace('__segments__', segments)
                                       .replace('__manifests__', segments[:-8] ~ 'manifests') -%}
    {%- do return(relation.replace(external=located)) -%}
  {%- endif -%}
  {%- do return(relation) -%}
{%- endmacro %}
