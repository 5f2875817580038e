{#- Lower-cased column names of an already-built relation ([] while dbt only parses). Lets a model
    use a column another model adds later (e.g. dim_papers.status) and fall back until then. -#}
{% macro relation_column_names(relation) %}
  {% if not execute %}
    {{ return([]) }}
  {% endif %}
  {% set names = [] %}
  {% for col in adapter.get_columns_in_relation(relation) %}
    {% do names.append(col.name | lower) %}
  {% endfor %}
  {{ return(names) }}
{% endmacro %}
