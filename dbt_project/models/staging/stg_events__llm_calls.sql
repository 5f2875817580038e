select * from {{ source('events', 'llm_call') }}
