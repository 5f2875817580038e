{#- Rows where the column lies outside [min_value, max_value]; either bound may be omitted.
    Nulls pass: pair with not_null where a value is required. -#}
{% test between(model, column_name, min_value=none, max_value=none) %}

select *
from {{ model }}
where {{ column_name }} is not null
  and (
    {% if min_value is not none %} {{ column_name }} < {{ min_value }} {% else %} false {% endif %}
    or
    {% if max_value is not none %} {{ column_name }} > {{ max_value }} {% else %} false {% endif %}
  )

{% endtest %}
