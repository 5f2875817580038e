{%- set dimensions = ['study', 'reviewer_config', 'judge', 'system', 'asset', 'run', 'model', 'prompt', 'day'] -%}
-- What calls cost, in long format: one row per study scope, dimension (study, reviewer_config, judge,
-- system, asset, run, model, prompt, day) and value of it. Per row: attempts paid for, error attempts,
-- replays (cost 0, counted), literature searches and their replays, tokens by class, the cost from
-- the price of each call's day, and calls whose cost is unknown (never summed as 0). study_scope
-- '(all studies)' counts everything; a study's scope only what its runs did. Within a scope each
-- dimension adds up to the same totals, except judge (judge calls only), system (reviewer-system
-- steps only) and reviewer_config, model and prompt (model calls only).
with

facts as (

    select * from {{ ref('int_cost_facts') }}

),

scoped as (

    select
        '(all studies)' as study_scope,
        *
    from facts
    union all
    select
        study_key as study_scope,
        *
    from facts

),

by_dimension as (

    {% for dimension in dimensions %}
        select
            study_scope,
            '{{ dimension }}' as dimension,
            {{ dimension }}_key as dimension_value,
            *
        from scoped
        where {{ dimension }}_key is not null
        {% if not loop.last %}union all{% endif %}
    {% endfor %}

),

grouped as (

    select
        study_scope,
        dimension,
        dimension_value,
        cast(sum(n_attempts) as bigint) as n_attempts,
        cast(sum(n_paid_calls) as bigint) as n_paid_calls,
        cast(sum(n_error_attempts) as bigint) as n_error_attempts,
        cast(sum(n_batch_calls) as bigint) as n_batch_calls,
        cast(sum(n_replays) as bigint) as n_replays,
        cast(sum(n_retrieval_calls) as bigint) as n_retrieval_calls,
        cast(sum(n_retrieval_replays) as bigint) as n_retrieval_replays,
        cast(sum(input_tokens) as bigint) as input_tokens,
        cast(sum(uncached_input_tokens) as bigint) as uncached_input_tokens,
        cast(sum(cached_input_tokens) as bigint) as cached_input_tokens,
        cast(sum(cache_write_tokens) as bigint) as cache_write_tokens,
        cast(sum(output_tokens) as bigint) as output_tokens,
        cast(sum(reasoning_tokens) as bigint) as reasoning_tokens,
        -- known costs only: null when none is known, and the unknown ones are counted beside it
        sum(cast(cost_usd as double)) as cost_usd,
        sum(cast(recorded_cost_usd as double)) as recorded_cost_usd,
        cast(sum(n_unpriced_calls) as bigint) as n_unpriced_calls

    from by_dimension
    group by study_scope, dimension, dimension_value

),

final as (

    select
        md5(concat_ws('|', study_scope, dimension, dimension_value)) as cost_breakdown_id,
        *,
        n_unpriced_calls = 0 as is_cost_complete,
        case
            when dimension_value = '(cli)'
                then 'calls made outside Dagster (the CLI, a notebook): no run or asset recorded'
            when dimension_value = '(no study)' then 'calls made outside any study'
            when dimension = 'prompt' and starts_with(dimension_value, '(no template)')
                then 'calls made without a prompt template'
        end as note

    from grouped

)

select * from final
