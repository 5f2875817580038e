{#- A model's plain column checks in one test: `unique` columns (nulls pass; the first is the model's key,
    by which a failed test's rows are named: orchestration.dbt_failures), `not_null` columns, `between`
    ranges ({column: {min_value, max_value}}, either bound optional, nulls pass) and `accepted_values`
    ({column: [values]}, nulls pass). One scan and one dbt node per model instead of one per column and
    check: a dbt test node costs ~30-40 ms of fixed overhead, and a mart has up to ~20 such checks. Every
    model states its checks here (tests/dbt/test_column_checks_fold.py). Each failing row carries
    `failed_checks`, naming every check it breaks (see it with `dbt test --store-failures`). A value is
    quoted as SQL text, so a quote in it is doubled. An accepted_values list may be named instead of
    written, when it is declared elsewhere: `quality_metrics` (every metric of the quality judges) and
    `card_scores` (their card scores), from macros/quality_judges.sql, plug-in judges included. -#}
{% test column_checks(model, unique=[], not_null=[], between={}, accepted_values={}) %}

{%- set checks = [] -%}
{%- for column in unique -%}
  {#- a window, not a join back to a grouped copy: one scan of the model for every check -#}
  {%- do checks.append(("\"" ~ column ~ "\" is not null and count(*) over (partition by \"" ~ column ~ "\") > 1",
                        column ~ " is not unique")) -%}
{%- endfor -%}
{%- for column in not_null -%}
  {%- do checks.append(("\"" ~ column ~ "\" is null", column ~ " is null")) -%}
{%- endfor -%}
{%- for column, bounds in between.items() -%}
  {%- if bounds.get("min_value") is not none -%}
    {%- do checks.append(("\"" ~ column ~ "\" < " ~ bounds["min_value"], column ~ " < " ~ bounds["min_value"])) -%}
  {%- endif -%}
  {%- if bounds.get("max_value") is not none -%}
    {%- do checks.append(("\"" ~ column ~ "\" > " ~ bounds["max_value"], column ~ " > " ~ bounds["max_value"])) -%}
  {%- endif -%}
{%- endfor -%}
{%- for column, values in accepted_values.items() -%}
  {%- if values == 'quality_metrics' -%}
    {%- set values = quality_metric_names() -%}
  {%- elif values == 'card_scores' -%}
    {%- set values = card_score_judges() | map(attribute='card_score') | list -%}
  {%- endif -%}
  {%- set listed = [] -%}
  {%- for value in values -%}
    {%- do listed.append(("'" ~ value | replace("'", "''") ~ "'") if value is string else (value | string | lower)) -%}
  {%- endfor -%}
  {%- do checks.append(("\"" ~ column ~ "\" not in (" ~ listed | join(", ") ~ ")",
                        column ~ " not in accepted values")) -%}
{%- endfor %}

with checked as (
    select
        *,
        concat_ws('; '
        {%- for condition, name in checks %},
            case when {{ condition }} then '{{ name }}' end
        {%- endfor %}
        ) as failed_checks
    from {{ model }}
)

select * from checked where failed_checks <> ''

{% endtest %}
